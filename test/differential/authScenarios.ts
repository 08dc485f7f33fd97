// Scenarios about custom auth (issue 52): which events each operation asks the project's
// handlers, with which values (the spy users of test/fixtures/differential-project/src/auth.ts
// log them), a refused event refusing its operation, store namespaces under a filter, and
// joining another user's run stream.
import { collect, outcome, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const SPY = 'spy-events';

/**
 * The events a call asked, in order, each once: upstream asks some twice over with the same
 * value (a run's wait reads its thread at every layer), which a handler cannot tell apart.
 */
async function eventsSeen(side: Side): Promise<unknown[]> {
  const seen = (await side.http('GET', `/custom/auth-events?user=${SPY}`, { user: SPY })).body as unknown[];
  const once = new Map(seen.map((e) => [JSON.stringify(e), e]));
  return [...once.values()];
}

/** Each call's failure status (null when it succeeded) and the auth events it asked. */
async function spied(side: Side, calls: [string, () => Promise<unknown>][]) {
  const out: Record<string, unknown> = {};
  await side.http('GET', `/custom/auth-events?user=${SPY}`, { user: SPY });
  for (const [name, call] of calls) {
    const result = await outcome(call);
    const failed = result && typeof result === 'object' && 'error' in result ? (result as { error: { status: number | null } }).error.status : null;
    out[name] = { failed, events: await eventsSeen(side) };
  }
  return out;
}

/** The status of a call by a user whose handler refuses one event (`deny-<event>`). */
const refused = async (side: Side, event: string, method: string, path: string, body?: unknown) =>
  (await side.http(method, path, { user: `deny-${event}`, ...(body === undefined ? {} : { body }) })).status;

export const authScenarios: Scenario[] = [
  {
    name: 'auth refusals',
    covers: 'issue 52 point 1: a handler refusing any event an operation asks refuses it (copy needs threads:read and threads:create)',
    async run(side) {
      const client = side.client();
      const assistant = (await client.assistants.search({ graphId: 'chat', metadata: { created_by: 'system' }, limit: 1 }))[0].assistant_id;
      const thread = (await client.threads.create()).thread_id;
      await client.runs.wait(thread, assistant, { input: say('hi') });
      const before = await client.threads.count();
      return {
        copyWithoutCreate: await refused(side, 'threads:create', 'POST', `/threads/${thread}/copy`),
        copyWithoutRead: await refused(side, 'threads:read', 'POST', `/threads/${thread}/copy`),
        noCopyMade: (await client.threads.count()) - before,
        updateStateWithoutRead: await refused(side, 'threads:read', 'POST', `/threads/${thread}/state`, { values: say('x') }),
        listRunsWithoutSearch: await refused(side, 'threads:search', 'GET', `/threads/${thread}/runs`),
        createWithoutCreate: await refused(side, 'threads:create', 'POST', '/threads', {}),
        storeListWithoutList: await refused(side, 'store:list_namespaces', 'POST', '/store/namespaces', {}),
      };
    },
  },
  {
    name: 'auth events of threads',
    covers: 'issue 52 point 1: the events and values thread operations ask the handlers (copy asks threads:read, then threads:create)',
    async run(side) {
      const client = side.client(SPY);
      const assistant = (await client.assistants.search({ graphId: 'chat', metadata: { created_by: 'system' }, limit: 1 }))[0].assistant_id;
      const thread = await client.threads.create({ metadata: { tag: 'spied' } });
      await client.runs.wait(thread.thread_id, assistant, { input: say('hi') });
      const id = thread.thread_id;
      return spied(side, [
        ['create', () => client.threads.create({ metadata: { a: 1 } })],
        ['get', () => client.threads.get(id)],
        ['patch', () => client.threads.update(id, { metadata: { b: 2 } })],
        ['search', () => client.threads.search({ metadata: { a: 1 }, limit: 3 })],
        ['count', () => client.threads.count({ metadata: { a: 1 } })],
        ['copy', () => client.threads.copy(id)],
        ['getState', () => client.threads.getState(id)],
        ['updateState', () => client.threads.updateState(id, { values: { messages: [] } })],
        ['history', () => client.threads.getHistory(id, { limit: 2 })],
        ['delete', () => client.threads.delete(id)],
      ]);
    },
  },
  {
    name: 'auth events of runs',
    covers: 'issue 52 point 1: the events and values run operations ask the handlers',
    async run(side) {
      const client = side.client(SPY);
      const assistant = (await client.assistants.search({ graphId: 'chat', metadata: { created_by: 'system' }, limit: 1 }))[0].assistant_id;
      const thread = (await client.threads.create()).thread_id;
      let runId = '';
      return spied(side, [
        ['create', async () => (runId = (await client.runs.create(thread, assistant, { input: say('a'), metadata: { m: 1 } })).run_id)],
        ['join', () => client.runs.join(thread, runId)],
        ['get', () => client.runs.get(thread, runId)],
        ['list', () => client.runs.list(thread, { limit: 5 })],
        ['joinStream', () => collect(client.runs.joinStream(thread, runId))],
        ['cancel', () => client.runs.cancel(thread, runId)],
        ['wait', () => client.runs.wait(thread, assistant, { input: say('b') })],
        ['stream', () => collect(client.runs.stream(thread, assistant, { input: say('c') }))],
        ['waitStateless', () => client.runs.wait(null, assistant, { input: say('d') })],
        ['delete', () => client.runs.delete(thread, runId)],
      ]);
    },
  },
  {
    name: 'auth events of assistants and the store',
    covers: 'issue 52 point 1: the events and values assistant and store operations ask the handlers',
    async run(side) {
      const client = side.client(SPY);
      let id = '';
      const ns = ['spied', 'store'];
      return spied(side, [
        ['create', async () => (id = (await client.assistants.create({ graphId: 'chat', metadata: { a: 1 }, name: 'spied' })).assistant_id)],
        ['get', () => client.assistants.get(id)],
        ['patch', () => client.assistants.update(id, { metadata: { b: 2 } })],
        ['search', () => client.assistants.search({ graphId: 'chat', limit: 2 })],
        ['count', () => client.assistants.count({ graphId: 'chat' })],
        ['graph', () => client.assistants.getGraph(id)],
        ['versions', () => client.assistants.getVersions(id)],
        ['setLatest', () => client.assistants.setLatest(id, 1)],
        ['delete', () => client.assistants.delete(id)],
        ['put', () => client.store.putItem(ns, 'k', { v: 1 })],
        ['getItem', () => client.store.getItem(ns, 'k')],
        ['searchItems', () => client.store.searchItems(ns, { limit: 3 })],
        ['namespaces', () => client.store.listNamespaces({ prefix: ['spied'] })],
        ['deleteItem', () => client.store.deleteItem(ns, 'k')],
      ]);
    },
  },
  {
    name: 'store under a namespace filter',
    covers: 'issue 52 point 2: a store handler returning {namespace: {$contains: identity}} confines namespace lists and item search, paged after filtering',
    async run(side) {
      const [bob, alice] = [side.client('ns-bob'), side.client('ns-alice')];
      for (const n of ['a', 'b']) await bob.store.putItem(['diff-a', 'ns-bob', n], 'k', { secret: n });
      for (const n of ['x', 'y']) await alice.store.putItem(['diff-b', 'ns-alice', n], 'k', { mine: n });
      return {
        namespaces: (await alice.store.listNamespaces({ prefix: ['diff-a'] })).namespaces,
        ownNamespaces: (await alice.store.listNamespaces({ limit: 1, offset: 1 })).namespaces,
        cutShort: (await alice.store.listNamespaces({ maxDepth: 1 })).namespaces,
        items: (await alice.store.searchItems(['diff-a'])).items.length,
        ownItems: (await alice.store.searchItems([], { limit: 5 })).items.map((i) => i.value).sort((a, b) => String(a.mine).localeCompare(String(b.mine))),
      };
    },
  },
  {
    name: "another user's run stream",
    covers: "issue 52 point 3: joining another user's run stream: a 200 event stream with one error event (the exact bytes), which the SDK yields",
    async run(side) {
      const carol = side.client('owner-carol');
      const thread = (await carol.threads.create()).thread_id;
      // by graph name: owner-carol does not own (so cannot find) the system assistant
      const run = await carol.runs.create(thread, 'chat', { input: say('mine') });
      await carol.runs.join(thread, run.run_id);
      const res = await fetch(`${side.url}/threads/${thread}/runs/${run.run_id}/stream`, { headers: { authorization: 'Bearer user-owner-dave' } });
      const raw = { status: res.status, contentType: res.headers.get('content-type')?.split(';')[0], bytes: await res.text() };
      const chunks = (await collect(side.client('owner-dave').runs.joinStream(thread, run.run_id))).map(({ event, data }) => ({ event, data }));
      return { raw, chunks };
    },
  },
];
