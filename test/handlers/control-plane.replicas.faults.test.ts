// Three agentplane replicas on one PostgreSQL database (issue 16): the control plane's
// pipeline with its requests spread round-robin over them, the deployer's progress and the
// cron scheduler as singletons — one replica leads each, the others take over when it is
// killed with kill -9, and work created on any replica reaches the leader.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { until } from '../support/until.ts';
import { logLines as linesOf } from '../support/logLines.ts';
import { FIXTURE_CONFIG } from '../fixtures/agent-server/project.ts';
import { failingBuildFlow, failingImageFlow, githubBody, json, keyedApi, pipelineFlow, type Api } from '../control-plane/support.ts';

const KEY = 'replicas-key';
const TENANT = '44444444-4444-4444-8444-444444444444';
const PHASES = ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'];

/** The server's log lines, read by field. */
const logLines = (server: ChildServer) => linesOf(server.output());

const alive = (server: ChildServer) => server.process.exitCode === null && server.process.signalCode === null;

/** Whether the replica's log says it leads `singleton` now (its last word on it was 'started leading'). */
function leads(server: ChildServer, singleton: string): boolean {
  const said = logLines(server).filter((l) => l.singleton === singleton && (l.msg === 'started leading' || l.msg === 'stopped leading'));
  return alive(server) && said.at(-1)?.msg === 'started leading';
}

/** The one live replica among `servers()` (read again at each look) leading `singleton`; fails when two lead at once. */
async function leaderOf(servers: () => ChildServer[], singleton: string): Promise<ChildServer> {
  return until(`a replica leading ${singleton}`, () => {
    const leading = servers().filter((s) => leads(s, singleton));
    assert.ok(leading.length <= 1, `${leading.length} replicas lead ${singleton} at once`);
    return leading[0];
  });
}

// the tests run in order on the same three replicas; one killed is replaced by a new one
describe('three replicas on one database', () => {
  const children: ChildServer[] = [];
  /** The three live replicas. */
  let replicas: ChildServer[] = [];
  let env: Record<string, string>;
  const args = () => ['--data', tempDir(), '--config', FIXTURE_CONFIG];
  const spawn = async () => {
    const child = await spawnServer(args(), env);
    children.push(child);
    return child;
  };
  before(async () => {
    // a phase long enough to kill a replica in the middle of a revision's lifecycle
    env = {
      DATABASE_URL: await freshDatabaseUrl(),
      AGENTPLANE_API_KEYS: `${KEY}:${TENANT}`,
      AGENTPLANE_VALIDATE_RESPONSES: '1',
      AGENTPLANE_RUN_WORKERS: '0',
      AGENTPLANE_PHASE_MS: '300',
    };
    // the first creates the schema; the others start side by side
    const first = await spawn();
    replicas = [first, ...(await Promise.all([spawn(), spawn()]))];
  });
  after(async () => {
    // a replacement still starting would outlive the kills below and hold the test process open
    await replacing.catch(() => undefined);
    for (const child of children) await child.kill();
  });

  /** Set while a replica killed is being replaced. */
  let replacing: Promise<void> = Promise.resolve();

  /**
   * Every replica alive, the one started in place of a killed one included once it is up: it
   * competes for the leases from its start, and may take one before either survivor's next
   * attempt (they try once a second; a compiled replica starts in less).
   */
  const live = () => children.filter(alive);

  /** Kills a replica with kill -9 and starts another in its place; resolves to the two survivors. */
  async function killAndReplace(victim: ChildServer): Promise<ChildServer[]> {
    await victim.kill('SIGKILL');
    const survivors = replicas.filter((r) => r !== victim);
    replicas = survivors;
    replacing = spawn().then((child) => void (replicas = [...replicas, child]));
    return survivors;
  }

  it('runs the CI/CD pipeline with its requests spread round-robin; one replica drives every revision', async () => {
    let turn = 0;
    const api: Api = keyedApi(KEY, () => replicas[turn++ % replicas.length].url);
    await pipelineFlow(api);
    await failingBuildFlow(api);
    await failingImageFlow(api);
    const leader = await leaderOf(() => replicas, 'deployer');
    // the other duties have one leader each too
    await leaderOf(() => replicas, 'cron-scheduler');
    await leaderOf(() => replicas, 'retention');
    const steps = replicas.map((r) => logLines(r).filter((l) => l.msg === 'revision status' || l.msg === 'revision failed').length);
    assert.ok(steps[replicas.indexOf(leader)] > 0);
    assert.deepEqual(
      steps.filter((_, n) => replicas[n] !== leader),
      [0, 0],
      'the replicas that do not lead the deployer step no revision',
    );
  });

  it("completes a deployment's lifecycle after the replica driving it is killed mid-way, exactly once", async () => {
    const leader = await leaderOf(() => replicas, 'deployer');
    const follower = replicas.find((r) => r !== leader)!;
    // created on a replica that does not lead: the leader hears of it
    let api = keyedApi(KEY, () => follower.url);
    const created = await json(await api('/v2/deployments', { method: 'POST', json: githubBody('failover-agent') }), 201);
    const revisionId = created.latest_revision_id;
    const seen: string[] = [];
    const look = async () => {
      const status = (await json(await api(`/v2/deployments/${created.id}/revisions/${revisionId}`), 200)).status as string;
      if (seen.at(-1) !== status) seen.push(status);
      return status;
    };
    // mid-way (a status between AWAITING_BUILD and AWAITING_DEPLOY: a loaded machine may poll
    // past one 300 ms phase), and well before the leader's slow safety look at the store (30 s):
    // the leader heard of the revision at once
    const midway = ['AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY'];
    await until('the revision in the middle of its lifecycle', async () => midway.includes(await look()), 20_000);
    const survivors = await killAndReplace(leader);
    const next = await leaderOf(live, 'deployer');
    let turn = 0;
    api = keyedApi(KEY, () => survivors[turn++ % survivors.length].url);
    // well within the leader's slow safety look at the store (30 s): the new leader took it up at once
    await until('the revision finished', async () => !PHASES.slice(0, -1).includes(await look()), 15_000);
    assert.equal(seen.at(-1), 'DEPLOYED');
    // every status it was seen in came after the one before
    const order = seen.map((s) => PHASES.indexOf(s));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
      `statuses seen: ${seen.join(' → ')}`,
    );

    const revisions = await json(await api(`/v2/deployments/${created.id}/revisions`), 200);
    assert.deepEqual(
      revisions.resources.map((r: any) => r.id),
      [revisionId],
      'one revision, not a second one',
    );
    const deployment = await json(await api(`/v2/deployments/${created.id}`), 200);
    assert.equal(deployment.status, 'READY');
    assert.equal(deployment.active_revision_id, revisionId);
    // each step was taken once across the replicas, and the new leader took the last ones
    const steps = children.flatMap((r) => logLines(r).filter((l) => l.msg === 'revision status' && l.revision_id === revisionId));
    const froms = steps.map((l) => l.from as string);
    assert.deepEqual(froms, [...new Set(froms)], `a step taken twice: ${froms.join(', ')}`);
    assert.ok(logLines(next).some((l) => l.msg === 'revision status' && l.revision_id === revisionId && l.status === 'DEPLOYED'));
    await replacing;
  });

  it('fires a cron once per tick across the replicas, and after the leading replica is killed', async () => {
    await replacing;
    assert.equal(replicas.length, 3);
    const leader = await leaderOf(() => replicas, 'cron-scheduler');
    const [follower, other] = replicas.filter((r) => r !== leader);
    const client = new Client({ apiUrl: follower.url, apiKey: KEY, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    // made on a replica that does not lead: the leader hears of it
    const cron = await client.crons.createForThread(thread.thread_id, 'echo', {
      schedule: '* * * * * *',
      input: { messages: [{ role: 'user', content: 'tick' }] },
    });
    const runs = async (on: Client) => (await on.runs.list(thread.thread_id, { limit: 1000 })).length;
    await until('three firings', async () => (await runs(client)) >= 3);
    const fired = (server: ChildServer) => logLines(server).filter((l) => l.msg === 'cron fired' && l.cron_id === cron.cron_id);
    await until('the leader to have logged them', () => fired(leader).length >= 3, 10_000);
    assert.deepEqual([fired(follower).length, fired(other).length], [0, 0], 'only the leader fires');

    await killAndReplace(leader);
    const next = await leaderOf(live, 'cron-scheduler');
    const before = await runs(client);
    await until('three firings after the leader was killed', async () => (await runs(client)) >= before + 3);
    // a firing's log line reaches us through the replica's stdout pipe, after its run exists
    await until('the new leader to have logged them', () => fired(next).length >= 3, 10_000);
    await client.crons.delete(cron.cron_id);

    // once per due time across the replicas, and one run per firing. A firing in flight at
    // the delete logs its line after its run exists, and the line reaches us through the
    // replica's stdout pipe: the two are compared once they agree (the killed replica may
    // have made a run without living to log its firing), not after a guessed pause
    const reader = new Client({ apiUrl: other.url, apiKey: KEY, callerOptions: { maxRetries: 0 } });
    const { dues, total } = await until('as many runs as logged firings (one more at most)', async () => {
      const total = await runs(reader);
      const dues = children.flatMap((r) => fired(r).map((l) => l.due as string));
      return total >= dues.length && total <= dues.length + 1 && { dues, total };
    });
    assert.deepEqual(dues, [...new Set(dues)], `a due time fired twice (${total} runs)`);
    await replacing;
    assert.deepEqual(
      replicas.filter((r) => leads(r, 'cron-scheduler')),
      [next],
      'the replica that took over leads alone',
    );
  });
});
