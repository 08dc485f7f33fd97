// Coordination between replicas on one PostgreSQL database (src/adapters/postgres/pgCoordination.ts):
// a key serialised across replicas, one leader per singleton with failover when the leader's
// session ends, and messages between replicas that survive a dropped LISTEN connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PgCoordination } from '../../../src/adapters/postgres/pgCoordination.ts';
import { freshDatabaseUrl } from '../../support/postgres.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('serialize: two replicas never run work for the same key at once', async () => {
  const url = await freshDatabaseUrl();
  const replicas = [new PgCoordination({ url }), new PgCoordination({ url })];
  try {
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        replicas[n % 2].serialize('thread-1', async () => {
          inside += 1;
          most = Math.max(most, inside);
          await sleep(5);
          order.push(n);
          inside -= 1;
        }),
      ),
    );
    assert.equal(most, 1, 'one holder at a time across replicas');
    assert.equal(order.length, 12);
    // another key is not held up by the first
    let other = false;
    await replicas[0].serialize('a', () => replicas[1].serialize('b', async () => void (other = true)));
    assert.ok(other);
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
  }
});

test("serialize: the work's answer does not wait for the unlock's, and the lock is free once PostgreSQL runs it", async () => {
  const url = await freshDatabaseUrl();
  const replicas = [new PgCoordination({ url }), new PgCoordination({ url })];
  const log: string[] = [];
  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    log.push(`sent ${text}`);
    const answer = (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
    if (answer instanceof Promise) answer.then(() => log.push(`answered ${text}`)).catch(() => {});
    return answer;
  } as typeof clientQuery;
  try {
    const answer = await replicas[0].serialize('thread-1', async () => 'done');
    const seen = [...log];
    pg.Client.prototype.query = clientQuery;
    assert.equal(answer, 'done');
    assert.ok(
      seen.some((line) => line.startsWith('sent SELECT pg_advisory_unlock')),
      seen.join('\n'),
    );
    // a round trip less for the caller (a run's creation): the unlock is on its way, not answered
    assert.ok(!seen.some((line) => line.startsWith('answered SELECT pg_advisory_unlock')), seen.join('\n'));
    // the other replica takes the key at once; a failing work lets it go too
    await replicas[1].serialize('thread-1', async () => undefined);
    await assert.rejects(
      replicas[0].serialize('thread-1', () => Promise.reject(new Error('work failed'))),
      /work failed/,
    );
    await assert.rejects(
      replicas[0].serialize('thread-1', () => {
        throw new Error('thrown at once');
      }),
      /thrown at once/,
    );
    await replicas[1].serialize('thread-1', async () => undefined);
  } finally {
    pg.Client.prototype.query = clientQuery;
    await Promise.all(replicas.map((r) => r.close()));
  }
});

test('singleton: one leader at a time, and another replica leads once its session is gone', async () => {
  const url = await freshDatabaseUrl();
  const replicas = [new PgCoordination({ url, leaseRetryMs: 50 }), new PgCoordination({ url, leaseRetryMs: 50 })];
  const leading = new Set<number>();
  let overlaps = 0;
  let leads = 0;
  const singletons = replicas.map((r, n) =>
    r.singleton('cron-scheduler', (signal) => {
      if (leading.size > 0) overlaps += 1;
      leads += 1;
      leading.add(n);
      signal.addEventListener('abort', () => leading.delete(n), { once: true });
    }),
  );
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await until('a leader', () => leading.size === 1);
    await sleep(200);
    assert.equal(leading.size, 1, 'the other replica stays a follower');
    // the leader's session ends from outside (a network cut, a database restart)
    // pg_locks is the whole server's: other test files' replicas hold the same kind of lock in their own databases
    const { rows } = await admin.query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      [0x61706c64],
    );
    assert.equal(rows.length, 1);
    assert.equal(overlaps, 0, 'never two leaders while both sessions live');
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    // the replica that lost it stops leading; one of the two (whichever tries first) leads next.
    // The other may take the lease a moment before the one that lost it hears from its socket
    // that its session is gone (seen once under load): no overlap is asserted here. The duties
    // claim their work in the store (a cron's due time, a run), so that moment fires nothing twice.
    await until('the lease to be won again', () => leads === 2 && leading.size === 1);
    const overlapsAfterKill = overlaps;
    // stopping the leader hands the lease over: its session ends only once it has stopped leading
    const now = [...leading][0];
    await singletons[now].stop();
    await until('the other replica to lead', () => leading.size === 1 && !leading.has(now));
    assert.equal(overlaps, overlapsAfterKill, 'a leader that stops hands over without an overlap');
  } finally {
    await admin.end();
    await Promise.all(replicas.map((r) => r.close()));
  }
});

test('notify/listen: a message reaches every replica; a dropped LISTEN connection is re-opened and says so', async () => {
  const url = await freshDatabaseUrl();
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const seenA: string[] = [];
    const seenB: string[] = [];
    a.listen('agentplane_test', (p) => seenA.push(p));
    b.listen('agentplane_test', (p) => seenB.push(p));
    await a.ready();
    await b.ready();
    seenA.length = 0;
    seenB.length = 0;
    await a.notify('agentplane_test', 'run-1');
    await until('both replicas to hear it', () => seenA.includes('run-1') && seenB.includes('run-1'));
    // b's LISTEN session is cut: b hears '' (look again) once it listens again, then new messages
    // the LISTEN sessions hold the replicas' liveness locks (their last statement may be the solo lock's)
    const { rows } = await admin.query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      [0x61707270],
    );
    assert.equal(rows.length, 2);
    for (const row of rows) await admin.query('SELECT pg_terminate_backend($1)', [row.pid]);
    seenB.length = 0;
    await until('b to re-listen', () => seenB.includes(''));
    await a.notify('agentplane_test', 'run-2');
    await until('b to hear the next message', () => seenB.includes('run-2'));
  } finally {
    await admin.end();
    await a.close();
    await b.close();
  }
});

test('singleton: stopped while its lease is being taken, it still stops (and frees the lease)', async () => {
  const url = await freshDatabaseUrl();
  const replica = new PgCoordination({ url });
  const other = new PgCoordination({ url, leaseRetryMs: 50 });
  try {
    let led = 0;
    let stillLeading = 0;
    for (let i = 0; i < 5; i += 1) {
      const singleton = replica.singleton('quick', (signal) => {
        led += 1;
        stillLeading += 1;
        signal.addEventListener('abort', () => (stillLeading -= 1), { once: true });
      });
      // stop at once: the lease is usually won while stop() waits
      await Promise.race([singleton.stop(), sleep(5_000).then(() => assert.fail('stop() hung'))]);
      assert.equal(stillLeading, 0);
    }
    // the lease is free for another replica afterwards
    let otherLeads = false;
    const next = other.singleton('quick', () => void (otherLeads = true));
    await until('the other replica to lead', () => otherLeads);
    await next.stop();
    assert.ok(led <= 5);
  } finally {
    await replica.close();
    await other.close();
  }
});

test('closed while its LISTEN connection is being opened, a replica leaves no session behind', async () => {
  const url = await freshDatabaseUrl();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const replica = new PgCoordination({ url });
    const connecting = replica.ready();
    await replica.close();
    await connecting;
    const sessions = async () =>
      (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows[0].n as number;
    // a session left open would keep the process alive (a test file that never exits)
    await until('the replica to have no session left', async () => (await sessions()) === 0, 3_000);
  } finally {
    await admin.end();
  }
});

test('alone: a replica alone serializes in process only; one coming waits for its works to end, then both take the lock in the database', async () => {
  const url = await freshDatabaseUrl();
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  // the serialize locks held in the database now ('apsz')
  const heldInDatabase = async () =>
    (
      await admin.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        [0x6170737a],
      )
    ).rows[0].n as number;
  try {
    await a.ready();
    assert.equal(a.alone(), true, 'no other replica on the database');
    assert.equal(await a.serialize('thread-1', heldInDatabase), 0, 'no lock in the database while alone');
    // a work of a's alone is under way when b comes: b is ready only once it has ended
    let release!: () => void;
    let ended = false;
    const working = a.serialize('thread-1', () => new Promise<void>((resolve) => (release = resolve))).then(() => (ended = true));
    let bReady = false;
    const coming = b.ready().then(() => (bReady = true));
    await until('a to stop being alone', () => !a.alone());
    await sleep(300);
    assert.equal(bReady, false, 'b waits while a work of a alone is under way');
    release();
    await working;
    await coming;
    assert.ok(ended);
    assert.equal(a.alone(), false);
    assert.equal(b.alone(), false);
    // both take the lock in the database now: one holder at a time across them
    let inside = 0;
    let most = 0;
    const held = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        [a, b][n % 2].serialize('thread-1', async () => {
          inside += 1;
          most = Math.max(most, inside);
          const locks = await heldInDatabase();
          inside -= 1;
          return locks;
        }),
      ),
    );
    assert.equal(most, 1);
    assert.deepEqual(
      held,
      Array.from({ length: 8 }, () => 1),
      'each work held the lock in the database',
    );
    // b gone, a is alone again at its next check
    await b.close();
    await until('a to be alone again', () => a.alone(), 5_000);
  } finally {
    await admin.end();
    await a.close();
    await b.close();
  }
});

// A deployment's lock is held while its tenant's quota lock is taken inside it (a PATCH that
// scales, a removal). Each held key is a connection of the lock pool: with as many outer keys held
// as the pool has connections, the inner key found none, and every holder waited for ever.
test('serialize: holders of outer keys waiting for an innermost key never take every connection it needs', async () => {
  const url = await freshDatabaseUrl();
  const replicas = [new PgCoordination({ url, lockPoolSize: 2 }), new PgCoordination({ url, lockPoolSize: 2 })];
  try {
    await until('the replicas share the database', () => !replicas[0].alone() && !replicas[1].alone());
    let done = 0;
    const nested = Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        replicas[n % 2].serialize(`deployment-${n}`, () =>
          replicas[n % 2].serialize(
            'quota:tenant',
            async () => {
              await sleep(5);
              done += 1;
            },
            { innermost: true },
          ),
        ),
      ),
    );
    const stuck = sleep(10_000).then(() => 'stuck');
    assert.equal(await Promise.race([nested.then(() => 'done'), stuck]), 'done');
    assert.equal(done, 6);
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
  }
});
