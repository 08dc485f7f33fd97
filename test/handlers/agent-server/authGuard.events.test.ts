// Every guarded operation asks the project's auth handlers the events upstream asks (its
// `x-auth` in the spec, checked against the upstream server by the differential suite's
// "auth events" scenarios), and a handler refusing any one of them refuses the operation:
// copying a thread asks threads:read on the source and threads:create for the copy, so a
// user who may read but not create gets no copy.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { operations } from '../../../generated/agent-server/operations.gen.ts';
import { eventsOf } from '../../../src/handlers/agent-server/authGuard.ts';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

let server: InProcessApp;
const ids: Record<string, string> = {};

type Call = { method?: string; path: string; query?: string; body?: unknown };

async function call(user: string, { method, path: at, query, body }: Call): Promise<number> {
  const res = await server.fetch(`${server.url}${at}${query ? `?${query}` : ''}`, {
    method: method ?? 'GET',
    headers: { authorization: `Bearer user-${user}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  // the status is the answer; a stream (the thread's stays open) is not read
  await res.body?.cancel();
  return res.status;
}

const say = { messages: [{ role: 'user', content: 'hi' }] };
const run = () => ({ assistant_id: 'echo', input: say });
const ns = ['refused', 'store'];

/** A valid request for every guarded operation (a new operation fails the test until it has one). */
const requests: Record<string, () => Call> = {
  getAssistant: () => ({ path: `/assistants/${ids.assistant}` }),
  patchAssistant: () => ({ method: 'PATCH', path: `/assistants/${ids.assistant}`, body: { metadata: { a: 1 } } }),
  createAssistant: () => ({ method: 'POST', path: '/assistants', body: { graph_id: 'echo' } }),
  countAssistants: () => ({ method: 'POST', path: '/assistants/count', body: {} }),
  listAssistantVersions: () => ({ method: 'POST', path: `/assistants/${ids.assistant}/versions`, body: {} }),
  setLatestAssistantVersion: () => ({ method: 'POST', path: `/assistants/${ids.assistant}/latest`, body: { version: 1 } }),
  getAssistantGraph: () => ({ path: `/assistants/${ids.assistant}/graph` }),
  getAssistantSchemas: () => ({ path: `/assistants/${ids.assistant}/schemas` }),
  getAssistantSubgraphs: () => ({ path: `/assistants/${ids.assistant}/subgraphs` }),
  getAssistantSubgraphsByNamespace: () => ({ path: `/assistants/${ids.assistant}/subgraphs/none` }),
  getAssistantRunMetrics: () => ({ path: `/assistants/${ids.assistant}/metrics` }),
  searchAssistants: () => ({ method: 'POST', path: '/assistants/search', body: {} }),
  createThread: () => ({ method: 'POST', path: '/threads', body: { supersteps: [{ updates: [{ values: say, as_node: 'echo' }] }] } }),
  searchThreads: () => ({ method: 'POST', path: '/threads/search', body: {} }),
  getThread: () => ({ path: `/threads/${ids.thread}` }),
  patchThread: () => ({ method: 'PATCH', path: `/threads/${ids.thread}`, body: { metadata: { a: 1 } } }),
  getThreadState: () => ({ path: `/threads/${ids.thread}/state` }),
  updateThreadState: () => ({ method: 'POST', path: `/threads/${ids.thread}/state`, body: { values: say } }),
  patchThreadState: () => ({ method: 'PATCH', path: `/threads/${ids.thread}/state`, body: { metadata: { a: 1 } } }),
  countThreads: () => ({ method: 'POST', path: '/threads/count', body: {} }),
  pruneThreads: () => ({ method: 'POST', path: '/threads/prune', body: { thread_ids: [ids.doomed], strategy: 'keep_latest' } }),
  copyThread: () => ({ method: 'POST', path: `/threads/${ids.thread}/copy` }),
  getThreadStateAtCheckpoint: () => ({ path: `/threads/${ids.thread}/state/${ids.checkpoint}` }),
  getThreadStateAtCheckpointPost: () => ({
    method: 'POST',
    path: `/threads/${ids.thread}/state/checkpoint`,
    body: { checkpoint: { checkpoint_id: ids.checkpoint } },
  }),
  getThreadHistory: () => ({ path: `/threads/${ids.thread}/history` }),
  searchThreadHistory: () => ({ method: 'POST', path: `/threads/${ids.thread}/history`, body: {} }),
  joinThreadStream: () => ({ path: `/threads/${ids.idle}/stream`, query: 'stream_mode=lifecycle' }),
  sendProtocolCommand: () => ({ method: 'POST', path: `/threads/${ids.thread}/commands`, body: { id: 1, method: 'run.start', params: run() } }),
  streamThreadEvents: () => ({ method: 'POST', path: `/threads/${ids.idle}/stream/events`, body: { channels: ['lifecycle'] } }),
  openThreadEventSocket: () => ({ method: 'GET', path: `/threads/${ids.idle}/stream/events` }),
  listRuns: () => ({ path: `/threads/${ids.thread}/runs` }),
  createRun: () => ({ method: 'POST', path: `/threads/${ids.thread}/runs`, body: run() }),
  getRun: () => ({ path: `/threads/${ids.thread}/runs/${ids.run}` }),
  cancelRun: () => ({ method: 'POST', path: `/threads/${ids.thread}/runs/${ids.run}/cancel`, query: 'wait=1' }),
  getRunTrace: () => ({ path: `/threads/${ids.thread}/runs/${ids.run}/trace` }),
  joinRun: () => ({ path: `/threads/${ids.thread}/runs/${ids.run}/join` }),
  joinRunStream: () => ({ path: `/threads/${ids.thread}/runs/${ids.run}/stream` }),
  waitRun: () => ({ method: 'POST', path: `/threads/${ids.thread}/runs/wait`, body: run() }),
  streamRun: () => ({ method: 'POST', path: `/threads/${ids.thread}/runs/stream`, body: run() }),
  createStatelessRun: () => ({ method: 'POST', path: '/runs', body: run() }),
  streamStatelessRun: () => ({ method: 'POST', path: '/runs/stream', body: run() }),
  waitStatelessRun: () => ({ method: 'POST', path: '/runs/wait', body: run() }),
  createRunBatch: () => ({ method: 'POST', path: '/runs/batch', body: [run()] }),
  cancelRuns: () => ({ method: 'POST', path: '/runs/cancel', body: { run_ids: [ids.run], thread_id: ids.thread } }),
  joinStatelessRunStream: () => ({ path: `/runs/${ids.run}/stream` }),
  getStoreItem: () => ({ path: '/store/items', query: `namespace=${ns.join('.')}&key=k` }),
  putStoreItem: () => ({ method: 'PUT', path: '/store/items', body: { namespace: ns, key: 'k', value: { v: 1 } } }),
  searchStoreItems: () => ({ method: 'POST', path: '/store/items/search', body: { namespace_prefix: ns } }),
  listStoreNamespaces: () => ({ method: 'POST', path: '/store/namespaces', body: {} }),
  createCron: () => ({ method: 'POST', path: '/runs/crons', body: { ...run(), schedule: '0 0 1 1 *' } }),
  createThreadCron: () => ({ method: 'POST', path: `/threads/${ids.thread}/runs/crons`, body: { ...run(), schedule: '0 0 1 1 *' } }),
  searchCrons: () => ({ method: 'POST', path: '/runs/crons/search', body: {} }),
  countCrons: () => ({ method: 'POST', path: '/runs/crons/count', body: {} }),
  updateCron: () => ({ method: 'PATCH', path: `/runs/crons/${ids.cron}`, body: { schedule: '0 0 2 1 *' } }),
  // the destructive ones last, on records of their own
  deleteStoreItem: () => ({ method: 'DELETE', path: '/store/items', body: { namespace: ns, key: 'k' } }),
  deleteCron: () => ({ method: 'DELETE', path: `/runs/crons/${ids.cron}` }),
  deleteRun: () => ({ method: 'DELETE', path: `/threads/${ids.doomed}/runs/${ids.doomedRun}` }),
  deleteThread: () => ({ method: 'DELETE', path: `/threads/${ids.doomed}` }),
  deleteAssistant: () => ({ method: 'DELETE', path: `/assistants/${ids.doomedAssistant}` }),
};

async function post(at: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await server.fetch(`${server.url}${at}`, {
    method: 'POST',
    headers: { authorization: 'Bearer user-setup', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `${at}: ${await res.clone().text()}`);
  return (await res.json()) as Record<string, unknown>;
}

before(async () => {
  server = await areaApp('agent-server', { dataDir: null, project: { ...testProject, auth: { path: path.join(ROOT, 'test/fixtures/auth/by-user.ts:auth') } } });
  ids.assistant = (await post('/assistants', { graph_id: 'echo' })).assistant_id as string;
  ids.doomedAssistant = (await post('/assistants', { graph_id: 'echo' })).assistant_id as string;
  for (const name of ['thread', 'doomed', 'idle']) ids[name] = (await post('/threads', {})).thread_id as string;
  ids.run = (await post(`/threads/${ids.thread}/runs`, run())).run_id as string;
  await server
    .fetch(`${server.url}/threads/${ids.thread}/runs/${ids.run}/join`, { headers: { authorization: 'Bearer user-setup' } })
    .then((r) => r.arrayBuffer());
  ids.doomedRun = (await post(`/threads/${ids.doomed}/runs`, run())).run_id as string;
  const state = await server.fetch(`${server.url}/threads/${ids.thread}/state`, { headers: { authorization: 'Bearer user-setup' } }).then((r) => r.json());
  ids.checkpoint = (state as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id;
  ids.cron = (await post('/runs/crons', { ...run(), schedule: '0 0 1 1 *' })).cron_id as string;
});
after(() => server?.close());

describe('every auth event an operation asks refuses it when the handler refuses', () => {
  it('every guarded operation has a request here', () => {
    const guarded = operations.filter((op) => Array.isArray(op.auth)).map((op) => op.operationId);
    assert.deepEqual(guarded.filter((id) => !requests[id]).sort(), []);
  });

  it('copying a thread asks threads:read of the source, then threads:create for the copy', () => {
    const copy = operations.find((op) => op.operationId === 'copyThread')!;
    assert.deepEqual(eventsOf(copy), ['threads:read', 'threads:create']);
  });

  for (const [operationId, request] of Object.entries(requests)) {
    it(operationId, async () => {
      const op = operations.find((o) => o.operationId === operationId)!;
      const events = eventsOf(op);
      assert.ok(events.length > 0, `${operationId} asks no event`);
      for (const event of events) assert.equal(await call(`deny-${event}`, request()), 403, `${operationId} with ${event} refused`);
      // refusing an event it does not ask leaves it alone (crons:read: no operation asks it)
      assert.notEqual(await call('deny-crons:read', request()), 403, `${operationId} refused although none of its events was`);
    });
  }
});
