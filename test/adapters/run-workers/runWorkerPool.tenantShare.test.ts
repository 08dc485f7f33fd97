// A tenant's runs hold all but one of the run workers at most (issue 83): a worker holds one
// tenant's runs at a time, so a flooding tenant holding every worker kept another tenant's run
// waiting for all of its runs in one worker to end, whatever run slots were free. Counted, not
// timed: B's run is answered while every one of A's runs of 30 s is still pending or running.
// And the worker left for the others is started as soon as a tenant holds its share, so another
// tenant's run does not wait for a worker's start (~1 s of a core, 5 s seen at load 21).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { cancelRuns, runStatuses, twoTenants, type TenantRun, type TwoTenants } from '../../support/twoTenants.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

const SLOTS = 4;
let tenants: TwoTenants;

before(async () => {
  tenants = await twoTenants('agent-server', { AGENTPLANE_MAX_CONCURRENT_RUNS: String(SLOTS), AGENTPLANE_RUN_WORKERS: '2' });
});
after(() => tenants.app.close());

const say = { messages: [{ role: 'user', content: 'hi' }] };
const call = async (key: string, path: string, body: unknown) => {
  const res = await tenants.send(key, 'POST', path, body);
  assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as Record<string, unknown>;
};

test("B's run finds a worker A may not hold: it is answered before any of A's runs ends", async () => {
  const { keyA, keyB } = tenants;
  // both tenants' first runs start the workers and load the graphs: not what is counted
  for (const key of [keyA, keyB]) await call(key, '/runs/wait', { assistant_id: 'echo', input: say });
  const aRuns: TenantRun[] = [];
  for (let i = 0; i < SLOTS; i++) {
    const thread = (await call(keyA, '/threads', {})) as { thread_id: string };
    const made = await call(keyA, `/threads/${thread.thread_id}/runs`, { assistant_id: 'slow', input: say, context: { delay_ms: 30_000 } });
    aRuns.push({ thread_id: thread.thread_id, run_id: made.run_id as string });
  }
  const statusesOfA = () => runStatuses(tenants, keyA, aRuns);
  // A's runs take what they may of the slots (all but one)
  for (let tries = 0; (await statusesOfA()).filter((s) => s === 'running').length < SLOTS - 1; tries++) {
    assert.ok(tries < 1_000, `A's runs did not start: ${(await statusesOfA()).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const thread = (await call(keyB, '/threads', {})) as { thread_id: string };
  await call(keyB, `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'echo', input: say });
  const statuses = await statusesOfA();
  // holding both workers, A's runs in one of them had to end (30 s) before B's could start
  assert.deepEqual(
    statuses.filter((s) => s !== 'pending' && s !== 'running'),
    [],
    `A's runs when B's was answered: ${statuses.join(', ')}`,
  );
  await cancelRuns(tenants, keyA, aRuns);
});

test('a tenant holding its share of the workers has the one left for the others started at once', { timeout: 60_000 }, async () => {
  const store = await openJournalStore({ dataDir: null });
  const pool = testRunWorkerPool({
    graphs: { hoard: './test/fixtures/graphs/hoard.ts:hoard' },
    store,
    compiled: true,
    size: 2,
    tenantShares: true,
  });
  const stop = new AbortController();
  try {
    const run = pendingRun(uuid7(), randomUUID(), {
      graph_id: 'hoard',
      status: 'running',
      owner: 'tenant-a',
      kwargs: { input: {}, context: { hold_ms: 60_000 } },
    });
    const running = pool.execute(run, stop.signal, () => undefined).catch(() => undefined);
    // A's one run holds one of two workers, all A may hold: the other is started with no run asking
    let workers = pool.workers();
    for (const until = performance.now() + 30_000; workers < 2 && performance.now() < until; await sleep(20)) workers = pool.workers();
    assert.equal(workers, 2, "the worker left for another tenant's run was not started");
    stop.abort();
    await running;
  } finally {
    stop.abort();
    await pool.stop();
    await store.close();
  }
});
