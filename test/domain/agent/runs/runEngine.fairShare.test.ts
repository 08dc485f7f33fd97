// A tenant's flood of runs does not hold another tenant's run back by more than one run's
// length (issue 83: with A's 30 queued runs of a 10-s graph, B's 1-s run took 29.5 s). Measured
// through the API, in process: two tenants, two run slots, A queues runs on many threads, then
// B's run's latency is compared with the same run's alone. And a tenant holds at most its share
// of the slots (AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT, all but one by default): B's run starts on
// the slot left, before any of A's runs ends, counted rather than timed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cancelRuns, runStatuses, twoTenants, type TenantRun, type TwoTenants } from '../../../support/twoTenants.ts';
import { areaApp } from '../../../support/area.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';

const A_RUN_MS = 800;
const A_RUNS = 10;
const SLOTS = 2;
let tenants: TwoTenants;
let keyA: string;
let keyB: string;

before(async () => {
  tenants = await twoTenants('agent-server', { AGENTPLANE_MAX_CONCURRENT_RUNS: String(SLOTS) });
  ({ keyA, keyB } = tenants);
});
after(() => tenants.app.close());

const call = async (key: string, path: string, body: unknown) => {
  const res = await tenants.send(key, 'POST', path, body);
  assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as Record<string, unknown>;
};
const say = { messages: [{ role: 'user', content: 'hi' }] };

/** B's run on a thread of its own, from its request to its answer, in ms. */
async function latencyOfB(): Promise<number> {
  const thread = (await call(keyB, '/threads', {})) as { thread_id: string };
  const started = performance.now();
  await call(keyB, `/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'echo', input: say });
  return performance.now() - started;
}

test(`B's run waits at most one of A's runs (${A_RUN_MS} ms) while A has ${A_RUNS} queued on ${SLOTS} slots`, async () => {
  // the graphs' modules load with their first runs: not part of what is measured
  await latencyOfB();
  const warm = (await call(keyA, '/threads', {})) as { thread_id: string };
  await call(keyA, `/threads/${warm.thread_id}/runs/wait`, { assistant_id: 'slow', input: say, context: { delay_ms: 0 } });
  const alone = await latencyOfB();
  const queued: string[] = [];
  for (let i = 0; i < A_RUNS; i++) {
    const thread = (await call(keyA, '/threads', {})) as { thread_id: string };
    await call(keyA, `/threads/${thread.thread_id}/runs`, { assistant_id: 'slow', input: say, context: { delay_ms: A_RUN_MS } });
    queued.push(thread.thread_id);
  }
  const flooded = await latencyOfB();
  // first come, first served, B waited for A's whole queue: (A_RUNS / SLOTS) runs' lengths, 4 s here
  assert.ok(flooded < A_RUN_MS + 300 + alone, `B's run took ${Math.round(flooded)} ms under A's flood (${Math.round(alone)} ms alone)`);
  // A's runs all ran, nothing was dropped for B's sake
  for (const thread of queued) await call(keyA, `/threads/${thread}/runs/wait`, { assistant_id: 'echo', input: say });
});

test("B's run takes the slot A may not hold: it is answered before any of A's runs ends", async () => {
  const aRuns: TenantRun[] = [];
  for (let i = 0; i < 4; i++) {
    const thread = (await call(keyA, '/threads', {})) as { thread_id: string };
    const made = await call(keyA, `/threads/${thread.thread_id}/runs`, { assistant_id: 'slow', input: say, context: { delay_ms: 30_000 } });
    aRuns.push({ thread_id: thread.thread_id, run_id: made.run_id as string });
  }
  const statusesOfA = () => runStatuses(tenants, keyA, aRuns);
  // A's runs take what they may of the two slots: one (all but one)
  for (let tries = 0; (await statusesOfA()).filter((s) => s === 'running').length === 0; tries++) {
    assert.ok(tries < 500, "none of A's runs started");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await latencyOfB();
  const statuses = await statusesOfA();
  // holding both slots, A's first run had to end (30 s) before B's could start
  assert.deepEqual(
    statuses.filter((s) => s !== 'pending' && s !== 'running'),
    [],
    `A's runs when B's was answered: ${statuses.join(', ')}`,
  );
  assert.equal(statuses.filter((s) => s === 'running').length, SLOTS - 1, statuses.join(', '));
  await cancelRuns(tenants, keyA, aRuns);
});

test('a server whose keys act for one tenant keeps every slot for it: nobody to leave one for', async () => {
  const key = `key-${randomUUID()}`;
  const app = await areaApp('agent-server', {
    dataDir: null,
    project: testProject,
    env: { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: `${key}:${randomUUID()}`, AGENTPLANE_MAX_CONCURRENT_RUNS: String(SLOTS) },
  });
  const one: TwoTenants = {
    app,
    keyA: key,
    keyB: key,
    send: (k, method, path, body) =>
      app.fetch(path, { method, headers: { 'x-api-key': k, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }),
  };
  try {
    const runs: TenantRun[] = [];
    for (let i = 0; i < SLOTS; i++) {
      const thread = (await (await one.send(key, 'POST', '/threads', {})).json()) as { thread_id: string };
      const res = await one.send(key, 'POST', `/threads/${thread.thread_id}/runs`, { assistant_id: 'slow', input: say, context: { delay_ms: 30_000 } });
      runs.push({ thread_id: thread.thread_id, run_id: ((await res.json()) as { run_id: string }).run_id });
    }
    for (let tries = 0; (await runStatuses(one, key, runs)).filter((s) => s === 'running').length < SLOTS; tries++) {
      assert.ok(tries < 500, `not every slot was taken: ${(await runStatuses(one, key, runs)).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await cancelRuns(one, key, runs);
  } finally {
    await app.close();
  }
});
