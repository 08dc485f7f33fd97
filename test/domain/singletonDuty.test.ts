// A background duty on one server at a time (src/domain/singletonDuty.ts): on the embedded
// store the one server leads from its start; on PostgreSQL one replica leads, work told on
// another reaches it, and a stop hands the duty over only once the term has ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SingletonDuty } from '../../src/domain/singletonDuty.ts';
import { LocalCoordination } from '../../src/adapters/embedded/localCoordination.ts';
import { PgCoordination } from '../../src/adapters/postgres/pgCoordination.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';

const log = createLogger('silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

test('embedded store: the server leads once started, messages stay in process, a term that cannot begin fails the start', async () => {
  const coordination = new LocalCoordination();
  const heard: string[] = [];
  let ended = false;
  const duty = new SingletonDuty(coordination, 'duty', log, async () => ({ hear: (p: string) => void heard.push(p), end: async () => void (ended = true) }));
  await duty.start();
  assert.ok(duty.leading, 'leading as soon as start has resolved');
  duty.tell('work-1');
  assert.deepEqual(heard, ['work-1'], 'told in process, at once');
  await duty.stop();
  assert.ok(ended);
  assert.equal(duty.leading, null);

  const broken = new SingletonDuty(coordination, 'broken', log, async () => {
    throw new Error('store unreadable');
  });
  await assert.rejects(broken.start(), /store unreadable/);
  await broken.stop();
});

test('PostgreSQL: one replica leads; work told on another reaches it; a stop hands over after the term ended', async () => {
  const url = await freshDatabaseUrl();
  const replicas = [new PgCoordination({ url, leaseRetryMs: 50 }), new PgCoordination({ url, leaseRetryMs: 50 })];
  const events: string[] = [];
  const heard: [number, string][] = [];
  let leading = 0;
  let overlaps = 0;
  const duties = replicas.map(
    (coordination, n) =>
      new SingletonDuty(coordination, 'duty', log, async () => {
        if ((leading += 1) > 1) overlaps += 1;
        events.push(`begin ${n}`);
        return {
          hear: (payload: string) => void heard.push([n, payload]),
          end: async () => {
            await sleep(100); // a step in progress finishes before the next leader begins
            events.push(`end ${n}`);
            leading -= 1;
          },
        };
      }),
  );
  try {
    for (const duty of duties) await duty.start();
    await until('a leader', () => duties.some((d) => d.leading));
    await sleep(200);
    assert.equal(duties.filter((d) => d.leading).length, 1);
    const first = duties.findIndex((d) => d.leading);
    const other = 1 - first;

    duties[other].tell('from the follower');
    await until('the leader to hear it', () => heard.some(([n, p]) => n === first && p === 'from the follower'));

    await duties[first].stop();
    await until('the other replica to lead', () => duties[other].leading !== null);
    assert.deepEqual(events, [`begin ${first}`, `end ${first}`, `begin ${other}`]);
    assert.equal(overlaps, 0);
  } finally {
    await Promise.all(duties.map((d) => d.stop()));
    await Promise.all(replicas.map((r) => r.close()));
  }
});

test('PostgreSQL: a term that cannot begin gives the lease up and is tried again after a pause', async () => {
  const url = await freshDatabaseUrl();
  const coordination = new PgCoordination({ url, leaseRetryMs: 200 });
  const attempts: number[] = [];
  const duty = new SingletonDuty(coordination, 'flaky', log, async () => {
    attempts.push(Date.now());
    if (attempts.length < 3) throw new Error('not yet');
    return { end: async () => {} };
  });
  try {
    await duty.start();
    await until('the third attempt to lead', () => duty.leading !== null);
    assert.equal(attempts.length, 3);
    assert.ok(attempts[2] - attempts[0] >= 350, `attempts ${attempts[1] - attempts[0]} and ${attempts[2] - attempts[1]} ms apart`);
  } finally {
    await duty.stop();
    await coordination.close();
  }
});
