// The scenarios: each is run once against each server and returns what a client observed
// (SDK answers, raw replies, stream events), which the suite normalises and compares. Names
// are what deliberate-differences.json refers to. Each scenario makes
// its own assistants, threads and namespaces, so scenarios do not see each other's records.
import { RemoteGraph } from '@langchain/langgraph/remote';
import { collect, outcome, bearer, USER, type Side } from './harness.ts';

export interface Scenario {
  name: string;
  /** What it checks (issue-27 point, SDK methods). */
  covers: string;
  /** Run on one server after the other (React's act() must not overlap), not side by side. */
  oneAtATime?: boolean;
  run(side: Side): Promise<Record<string, unknown>>;
}

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const system = async (side: Side, graphId: string) =>
  (await side.client().assistants.search({ graphId, metadata: { created_by: 'system' }, limit: 1 }))[0].assistant_id;
/** Messages as a person reads them (type and text). */
const chat = (values: unknown) =>
  ((values as { messages?: { type: string; content: unknown }[] })?.messages ?? []).map(
    (m) => `${m.type}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
  );

// Views: what a scenario about one thing reads of a record. The shapes that issue-27 points
// change (message dicts, checkpoint metadata, task fields, run kwargs) are compared whole by
// the scenarios of those points, not by every scenario that happens to return them.
type StateLike = {
  values: unknown;
  next: string[];
  tasks: { name: string; interrupts?: { value?: unknown }[] }[];
  checkpoint?: unknown;
  parent_checkpoint?: unknown;
};
const stateView = (state: StateLike) => ({
  messages: chat(state.values),
  values: Object.fromEntries(Object.entries((state.values as Record<string, unknown>) ?? {}).filter(([k]) => k !== 'messages')),
  next: state.next,
  tasks: state.tasks.map((t) => ({ name: t.name, interrupts: (t.interrupts ?? []).map((i) => i.value) })),
  hasCheckpoint: !!state.checkpoint,
});
type RunLike = {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: string;
  metadata?: Record<string, unknown> | null;
  multitask_strategy?: unknown;
};
/** The run's own fields; of its metadata the keys the request gave (upstream adds more: point 6). */
const runView = (run: RunLike, given: Record<string, unknown> = {}) => ({
  run_id: run.run_id,
  thread_id: run.thread_id,
  assistant_id: run.assistant_id,
  status: run.status,
  metadata: Object.fromEntries(Object.keys(given).map((k) => [k, run.metadata?.[k]])),
  multitask_strategy: run.multitask_strategy,
});
type Chunk = { event: string; data: unknown };
/** A stream as a chat reads it: events in order, message chunks as type and text with their node, no `end` event (point 4). */
const streamView = (events: Chunk[]) =>
  events
    .filter((e) => e.event !== 'end')
    .map((e) => {
      if (e.event.startsWith('messages') && Array.isArray(e.data)) {
        const [message, meta] = e.data as [{ type: string; content: unknown }, { langgraph_node?: string }];
        return { event: e.event, message: `${message.type}: ${String(message.content)}`, node: meta?.langgraph_node };
      }
      if (e.event.startsWith('values'))
        return { event: e.event, messages: chat(e.data), other: Object.keys((e.data as object) ?? {}).filter((k) => k !== 'messages') };
      if (e.event.startsWith('updates'))
        return {
          event: e.event,
          nodes: Object.fromEntries(Object.entries((e.data as Record<string, unknown>) ?? {}).map(([node, update]) => [node, chat(update)])),
        };
      return e;
    });
/** An SDK failure's status (its message wording is the `errors` scenario's). */
const status = async (call: Promise<unknown>) => {
  const result = await outcome(call);
  return result && typeof result === 'object' && 'error' in result ? { error: (result as { error: { status: number | null } }).error.status } : 'ok';
};
/** A new thread after one run of a graph on it, waited for. */
async function threadAfterRun(side: Side, graphId: string, text: string, options: { metadata?: Record<string, unknown> } = {}) {
  const client = side.client();
  const threadId = (await client.threads.create()).thread_id;
  const result = await client.runs.wait(threadId, await system(side, graphId), { input: say(text), ...options });
  return { client, threadId, result };
}
/** An error reply's text, whether the server sent it as text or as `{detail}`. */
const detail = (body: unknown) => (typeof body === 'string' ? body : ((body as { detail?: unknown })?.detail ?? body));

export const scenarios: Scenario[] = [
  // ── the API surface, SDK method by SDK method ──────────────────────────────────────────
  {
    name: 'system assistants',
    covers: 'assistants.search/count/get: one system assistant per graph (its id derived from the graph id)',
    async run(side) {
      const client = side.client();
      const found = await client.assistants.search({ metadata: { created_by: 'system' }, limit: 20 });
      // the factory's LANGGRAPH_CONFIG defaults are point 2's ('assistant config reaches runs')
      const view = found.map((a) => (a.graph_id === 'factory' ? { ...a, config: '(point 2)' } : a)).sort((a, b) => a.graph_id.localeCompare(b.graph_id));
      return { found: view, count: await client.assistants.count({ metadata: { created_by: 'system' } }), byGraphId: await client.assistants.get('chat') };
    },
  },
  {
    name: 'assistant lifecycle',
    covers: 'assistants.create/get/update/getVersions/setLatest/search/count/delete',
    async run(side) {
      const client = side.client();
      const tag = { scenario: 'assistant-lifecycle' };
      const created = await client.assistants.create({ graphId: 'chat', name: 'first', metadata: tag, config: { configurable: { x: 1 } }, context: { a: 1 } });
      const updated = await client.assistants.update(created.assistant_id, { name: 'second', config: { configurable: { x: 2 } } });
      const versions = await client.assistants.getVersions(created.assistant_id);
      const reverted = await client.assistants.setLatest(created.assistant_id, 1);
      const search = await client.assistants.search({ metadata: tag });
      const count = await client.assistants.count({ metadata: tag });
      const deleted = await side.http('DELETE', `/assistants/${created.assistant_id}`);
      const afterDelete = await status(client.assistants.get(created.assistant_id));
      return { created, updated, versions, reverted, search, count, deleted, afterDelete };
    },
  },
  {
    name: 'assistant if_exists',
    covers: 'assistants.create with assistantId and ifExists raise/do_nothing, an unknown graph',
    async run(side) {
      const client = side.client();
      const id = '5a3c1c6e-0000-4000-8000-000000000001';
      const first = await client.assistants.create({ graphId: 'chat', assistantId: id, name: 'pinned' });
      const again = await status(client.assistants.create({ graphId: 'chat', assistantId: id, ifExists: 'raise' }));
      const nothing = await client.assistants.create({ graphId: 'chat', assistantId: id, ifExists: 'do_nothing', name: 'ignored' });
      const unknownGraph = await side.http('POST', '/assistants', { body: { graph_id: 'no-such-graph' } });
      await client.assistants.delete(id);
      return { first, again, nothing, unknownGraph: unknownGraph.status };
    },
  },
  {
    name: 'graph drawing',
    covers: 'assistants.getGraph with and without xray',
    async run(side) {
      const client = side.client();
      return {
        chat: await client.assistants.getGraph(await system(side, 'chat')),
        parent: await client.assistants.getGraph(await system(side, 'parent')),
        parentXray: await client.assistants.getGraph(await system(side, 'parent'), { xray: true }),
      };
    },
  },
  {
    name: 'thread lifecycle',
    covers: 'threads.create/get/update/search/count/copy/delete',
    async run(side) {
      const client = side.client();
      const tag = { scenario: 'thread-lifecycle' };
      const created = await client.threads.create({ metadata: tag });
      const got = await client.threads.get(created.thread_id);
      const updated = await client.threads.update(created.thread_id, { metadata: { more: true } });
      const search = await client.threads.search({ metadata: tag });
      const count = await client.threads.count({ metadata: tag });
      const copy = await client.threads.copy(created.thread_id);
      const deleted = await side.http('DELETE', `/threads/${created.thread_id}`);
      const afterDelete = await status(client.threads.get(created.thread_id));
      await client.threads.delete(copy.thread_id);
      return { created, got, updated, search, count, copy, deleted, afterDelete };
    },
  },
  {
    name: 'thread state',
    covers: 'runs.wait, threads.getState/updateState/patchState/getHistory',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create({ metadata: { scenario: 'thread-state' } });
      const waited = await client.runs.wait(thread.thread_id, await system(side, 'chat'), { input: say('one') });
      const state = await client.threads.getState(thread.thread_id);
      const update = await client.threads.updateState(thread.thread_id, {
        values: { messages: [{ type: 'ai', content: 'edited', id: 'edit-1' }] },
        asNode: 'reply',
      });
      const afterUpdate = await client.threads.getState(thread.thread_id);
      const patched = await status(client.threads.patchState(thread.thread_id, { note: 'patched' }));
      const afterPatch = await client.threads.get(thread.thread_id);
      const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
      return {
        waited: chat(waited),
        state: stateView(state),
        update,
        afterUpdate: stateView(afterUpdate),
        patched,
        afterPatch: { metadata: afterPatch.metadata, status: afterPatch.status, messages: chat(afterPatch.values) },
        history: history.map(stateView),
      };
    },
  },
  {
    name: 'thread stream and prune',
    covers: 'threads.joinStream (GET /threads/{id}/stream) and threads.prune',
    async run(side) {
      const client = side.client();
      const { threadId } = await threadAfterRun(side, 'chat', 'to prune');
      // a thread's stream stays open for its next runs: only whether it opens is compared
      const stream = await fetch(`${side.url}/threads/${threadId}/stream`, {
        headers: { ...bearer(USER), accept: 'text/event-stream' },
        signal: AbortSignal.timeout(30_000),
      });
      await stream.body?.cancel();
      const pruned = await status(client.threads.prune([threadId], { strategy: 'delete' }));
      return { stream: stream.status, pruned, afterPrune: await status(client.threads.get(threadId)) };
    },
  },
  {
    name: 'runs in the background',
    covers: 'runs.create/join/get/list/delete, runs.wait stateless',
    async run(side) {
      const client = side.client();
      const chatId = await system(side, 'chat');
      const thread = await client.threads.create();
      const given = { scenario: 'runs' };
      const run = await client.runs.create(thread.thread_id, chatId, { input: say('background'), metadata: given, multitaskStrategy: 'enqueue' });
      const joined = await client.runs.join(thread.thread_id, run.run_id);
      const got = await client.runs.get(thread.thread_id, run.run_id);
      const list = await client.runs.list(thread.thread_id);
      const deleted = await side.http('DELETE', `/threads/${thread.thread_id}/runs/${run.run_id}`);
      const afterDelete = await status(client.runs.get(thread.thread_id, run.run_id));
      const stateless = await client.runs.wait(null, chatId, { input: say('no thread') });
      return {
        run: runView(run, given),
        joined: chat(joined),
        got: runView(got, given),
        list: list.map((r) => runView(r, given)),
        deleted,
        afterDelete,
        stateless: chat(stateless),
      };
    },
  },
  {
    name: 'default multitask strategy',
    covers: 'a run created without multitask_strategy',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, await system(side, 'chat'), { input: say('default') });
      await client.runs.join(thread.thread_id, run.run_id);
      return { strategy: run.multitask_strategy };
    },
  },
  {
    name: 'run batch',
    covers: 'runs.createBatch',
    async run(side) {
      const client = side.client();
      const chatId = await system(side, 'chat');
      const runs = await client.runs.createBatch([
        { assistantId: chatId, input: say('batch one') },
        { assistantId: chatId, input: say('batch two') },
      ]);
      return { runs: runs.map((r) => ({ status: typeof r.status, assistant: r.assistant_id === chatId })), count: runs.length };
    },
  },
  {
    name: 'sdk stream modes',
    covers: 'runs.stream with values, updates, messages-tuple',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const chunks = await collect(
        client.runs.stream(thread.thread_id, await system(side, 'chat'), { input: say('stream me'), streamMode: ['values', 'updates', 'messages-tuple'] }),
      );
      return { chunks: streamView(chunks) };
    },
  },
  {
    name: 'raw stream ending',
    covers: 'point 4: the events of POST /runs/stream (SSE), in order, and how the stream ends',
    async run(side) {
      const assistant = await system(side, 'chat');
      const { status: code, events } = await side.sse('POST', '/runs/stream', {
        assistant_id: assistant,
        input: say('raw'),
        stream_mode: ['values', 'messages-tuple'],
      });
      return { status: code, events: events.map((e) => (e.event === 'messages' ? { event: e.event, message: streamView([e])[0] } : e)) };
    },
  },
  {
    name: 'failed run stream',
    covers: 'point 4: a failing run: error is the last event',
    async run(side) {
      const assistant = await system(side, 'broken');
      return { stream: await side.sse('POST', '/runs/stream', { assistant_id: assistant, input: say('fail'), stream_mode: ['values'] }) };
    },
  },
  {
    name: 'join streams',
    covers: 'runs.joinStream of a finished run',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, await system(side, 'chat'), {
        input: say('join me'),
        streamMode: ['values'],
        streamResumable: true,
      });
      // finished for sure: joined right after the create, it may or may not have ended, on either server
      await client.runs.join(thread.thread_id, run.run_id);
      const joined = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
      return { joined: streamView(joined) };
    },
  },
  {
    name: 'interrupt and resume',
    covers: 'an interrupted run, the thread interrupted, resumed with a command',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const assistant = await system(side, 'approval');
      const first = await client.runs.wait(thread.thread_id, assistant, { input: say('ship it?') });
      const interrupted = await client.threads.getState(thread.thread_id);
      const threadThen = await client.threads.get(thread.thread_id);
      const resumed = await client.runs.wait(thread.thread_id, assistant, { command: { resume: 'yes' } });
      const done = await client.threads.getState(thread.thread_id);
      const threadNow = await client.threads.get(thread.thread_id);
      return {
        first,
        interrupted: stateView(interrupted),
        threadThen: { status: threadThen.status, interrupts: threadThen.interrupts },
        resumed: chat(resumed),
        done: stateView(done),
        threadNow: { status: threadNow.status, interrupts: threadNow.interrupts },
      };
    },
  },
  {
    name: 'stable history',
    covers: 'issue 52 point 4: a message stored without an id (a task result) reads the same every time, in a copy too',
    async run(side) {
      const { client, threadId } = await threadAfterRun(side, 'tools', 'what is 6 * 7?');
      const history = await client.threads.getHistory(threadId);
      const again = await client.threads.getHistory(threadId);
      const copy = await client.threads.copy(threadId);
      const copied = await client.threads.getHistory(copy.thread_id);
      // a state as a client compares it: all but the thread it belongs to
      const content = (states: typeof history) =>
        states.map(({ values, next, tasks, checkpoint }) => ({ values, next, tasks, checkpoint: checkpoint.checkpoint_id }));
      return {
        results: history.map((state) => state.tasks.map((task) => (task as { result?: unknown }).result)),
        values: (await client.threads.getState(threadId)).values,
        readsAlike: JSON.stringify(again) === JSON.stringify(history),
        copyAlike: JSON.stringify(content(copied)) === JSON.stringify(content(history)),
      };
    },
  },
  {
    name: 'task shapes',
    covers: 'point 5: state.tasks[] of an interrupted run, whole',
    async run(side) {
      const { client, threadId } = await threadAfterRun(side, 'approval', 'ship it?');
      return { tasks: (await client.threads.getState(threadId)).tasks };
    },
  },
  {
    name: 'subgraph state',
    covers: 'point 5: a subgraph stopped for input: tasks[].state/checkpoint, getState with subgraphs',
    async run(side) {
      const { client, threadId } = await threadAfterRun(side, 'parent', 'go');
      const state = await client.threads.getState(threadId, undefined, { subgraphs: true });
      const resumed = await client.runs.wait(threadId, await system(side, 'parent'), { command: { resume: 'a note' } });
      return { tasks: state.tasks, resumed: chat(resumed) };
    },
  },
  {
    name: 'debug and tasks streams',
    covers: 'point 5: debug-mode checkpoint events and the tasks stream mode',
    async run(side) {
      const assistant = await system(side, 'chat');
      return { stream: await side.sse('POST', '/runs/stream', { assistant_id: assistant, input: say('debug'), stream_mode: ['debug', 'tasks'] }) };
    },
  },
  {
    name: 'message dicts',
    covers: 'point 5: messages in state carry additional_kwargs and response_metadata',
    async run(side) {
      const { client, threadId } = await threadAfterRun(side, 'chat', 'shape');
      return { values: (await client.threads.getState(threadId)).values };
    },
  },
  {
    name: 'checkpoint metadata',
    covers: 'point 6: checkpoint metadata, threads.getHistory filtered by metadata',
    async run(side) {
      const { client, threadId } = await threadAfterRun(side, 'chat', 'meta', { metadata: { tagged: 'yes' } });
      const history = await client.threads.getHistory(threadId);
      const filtered = await client.threads.getHistory(threadId, { metadata: { tagged: 'yes' } });
      return { metadata: history.map((h) => h.metadata), filtered: filtered.length };
    },
  },
  {
    name: 'run record',
    covers: 'points 2, 6: a run as stored: its kwargs (config the run sees) and metadata',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, await system(side, 'chat'), {
        input: say('record'),
        metadata: { given: 1 },
        multitaskStrategy: 'enqueue',
      });
      await client.runs.join(thread.thread_id, run.run_id);
      return { run: await client.runs.get(thread.thread_id, run.run_id) };
    },
  },
  {
    name: 'cancel a pending run',
    covers: 'runs.cancel of a run scheduled for later',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const assistant = await system(side, 'chat');
      const queued = await client.runs.create(thread.thread_id, assistant, { input: say('later'), afterSeconds: 3600 });
      const cancelled = await status(client.runs.cancel(thread.thread_id, queued.run_id));
      const after = await client.runs.get(thread.thread_id, queued.run_id);
      return { cancelled, after: after.status };
    },
  },
  {
    name: 'cancel many',
    covers: 'point 9: runs.cancelMany with a thread and a status',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      await client.runs.create(thread.thread_id, await system(side, 'chat'), { input: say('later'), afterSeconds: 3600 });
      return { many: await status(client.runs.cancelMany({ threadId: thread.thread_id, status: 'pending' })) };
    },
  },
  {
    name: 'crons',
    covers: 'crons.createForThread/create/search/count/update/delete',
    async run(side) {
      const client = side.client();
      const assistant = await system(side, 'chat');
      const thread = await client.threads.create();
      const forThread = await outcome(client.crons.createForThread(thread.thread_id, assistant, { schedule: '0 0 1 1 *', input: say('cron') }));
      const stateless = await outcome(client.crons.create(assistant, { schedule: '0 0 1 1 *', input: say('cron') }));
      const search = await outcome(client.crons.search({ assistantId: assistant }));
      const count = await outcome(client.crons.count({ assistantId: assistant }));
      const id = (stateless as { cron_id?: string }).cron_id;
      const updated = id ? await outcome(client.crons.update(id, { schedule: '0 0 2 1 *' })) : null;
      const deleted = id ? await outcome(client.crons.delete(id)) : null;
      const threadCron = (forThread as { cron_id?: string }).cron_id;
      if (threadCron) await client.crons.delete(threadCron);
      return { forThread, stateless, search, count, updated, deleted };
    },
  },
  {
    name: 'store',
    covers: 'store.putItem/getItem/searchItems/listNamespaces/deleteItem, and a graph using the store',
    async run(side) {
      const client = side.client();
      const ns = ['differential', 'store'];
      await client.store.putItem(ns, 'a', { text: 'first', n: 1 });
      await client.store.putItem(ns, 'b', { text: 'second', n: 2 });
      const got = await client.store.getItem(ns, 'a');
      const search = await client.store.searchItems(ns, { filter: { n: 2 } });
      const namespaces = await client.store.listNamespaces({ prefix: ['differential'] });
      await client.store.deleteItem(ns, 'a');
      const gone = await client.store.getItem(ns, 'a');
      const missing = await client.store.getItem(ns, 'never');
      const byGraph = await client.runs.wait(null, await system(side, 'memory'), { input: say('first memory') });
      return { got, search, namespaces, gone, missing, byGraph: chat(byGraph) };
    },
  },
  {
    name: 'store order',
    covers: 'issue 90, point 7: store.searchItems without a query of two items written one after the other, and listNamespaces once a namespace is emptied',
    async run(side) {
      const client = side.client();
      const ns = ['differential', 'order'];
      await client.store.putItem(ns, 'first', { n: 1 });
      // a later updated_at, whatever the clock's resolution
      await new Promise((resolve) => setTimeout(resolve, 20));
      await client.store.putItem(ns, 'second', { n: 2 });
      const order = (await client.store.searchItems(ns)).items.map((item) => item.key);
      await client.store.putItem(['differential', 'emptied'], 'only', { n: 1 });
      await client.store.deleteItem(['differential', 'emptied'], 'only');
      const namespaces = await client.store.listNamespaces({ prefix: ['differential', 'emptied'] });
      return { order, namespaces };
    },
  },
  {
    name: 'remote graph',
    covers: 'RemoteGraph invoke/stream/getState/getGraph',
    async run(side) {
      const remote = new RemoteGraph({ graphId: 'chat', url: side.url, headers: bearer(USER) });
      const threadId = (await side.client().threads.create()).thread_id;
      const config = { configurable: { thread_id: threadId } };
      const invoked = await remote.invoke(say('remote'), config);
      const streamed = await collect(await remote.stream(say('remote again'), { ...config, streamMode: 'updates' }));
      const state = await remote.getState(config);
      const drawing = (await remote.getGraphAsync()).toJSON();
      return {
        invoked: chat(invoked),
        streamed: streamed.map((u) => Object.fromEntries(Object.entries(u as Record<string, unknown>).map(([node, update]) => [node, chat(update)]))),
        state: chat(state.values),
        next: state.next,
        drawing,
      };
    },
  },
  {
    name: 'error statuses',
    covers: 'statuses of unknown records, a bad body, an unknown API path',
    async run(side) {
      const missing = '00000000-0000-4000-8000-000000000000';
      const replies = {
        thread: await side.http('GET', `/threads/${missing}`),
        assistant: await side.http('GET', `/assistants/${missing}`),
        run: await side.http('GET', `/threads/${missing}/runs/${missing}`),
        badBody: await side.http('POST', '/threads/search', { body: { limit: 'many' } }),
      };
      return Object.fromEntries(Object.entries(replies).map(([k, r]) => [k, r.status]));
    },
  },
  {
    name: 'error wording',
    covers: 'point 9: the detail text of errors',
    async run(side) {
      const missing = '00000000-0000-4000-8000-000000000000';
      return {
        thread: detail((await side.http('GET', `/threads/${missing}`)).body),
        assistant: detail((await side.http('GET', `/assistants/${missing}`)).body),
        run: detail((await side.http('GET', `/threads/${missing}/runs/${missing}`)).body),
      };
    },
  },
  {
    name: 'error body format',
    covers: 'how an error body is written',
    async run(side) {
      const reply = await side.http('GET', '/threads/00000000-0000-4000-8000-000000000000', { keepHeaders: ['content-type'] });
      return { isJson: typeof reply.body === 'object', contentType: reply.headers?.['content-type']?.split(';')[0] };
    },
  },
  {
    name: 'unknown api path',
    covers: 'point 8: an unknown path with http.app mounted',
    async run(side) {
      return { status: (await side.http('GET', '/no/such/api/path')).status };
    },
  },
  {
    name: 'auth',
    covers: 'custom auth: no token, a bad token',
    async run(side) {
      const noToken = await side.http('POST', '/threads/search', { body: {}, user: null });
      const badToken = await side.http('POST', '/threads/search', { body: {}, user: null, headers: { authorization: 'Bearer nobody' } });
      return { noToken: { status: noToken.status, detail: detail(noToken.body) }, badToken: { status: badToken.status, detail: detail(badToken.body) } };
    },
  },
  {
    name: 'liveness under auth',
    covers: 'GET /ok without credentials when the project has custom auth',
    async run(side) {
      return { status: (await side.http('GET', '/ok', { user: null })).status };
    },
  },
  {
    name: 'custom route',
    covers: 'http.app: a custom route with the project env',
    async run(side) {
      return { hello: await side.http('GET', '/custom/hello', { keepHeaders: ['x-differential-middleware'] }) };
    },
  },

  // ── issue 27's points, each checked against upstream ─────────────────
  {
    name: 'platform globals',
    covers: 'point 1: getLogger() and new Client() without a URL inside graph code',
    async run(side) {
      return { result: await outcome(async () => chat(await side.client().runs.wait(null, await system(side, 'globals'), { input: say('hi') }))) };
    },
  },
  {
    name: 'assistant config reaches runs',
    covers: 'point 2: LANGGRAPH_CONFIG, the assistant config and context merged into runs, the factory called with it',
    async run(side) {
      const client = side.client();
      const yo = await client.assistants.create({ graphId: 'factory', config: { configurable: { greeting: 'yo' } } });
      const large = await client.assistants.create({ graphId: 'typed', context: { model: 'large' } });
      const out = {
        systemConfig: (await client.assistants.get(await system(side, 'factory'))).config,
        systemFactory: chat(await client.runs.wait(null, 'factory', { input: say('hi') })),
        assistantFactory: chat(await client.runs.wait(null, yo.assistant_id, { input: say('hi') })),
        overridden: chat(await client.runs.wait(null, yo.assistant_id, { input: say('hi'), config: { configurable: { greeting: 'hey' } } })),
        context: chat(await client.runs.wait(null, large.assistant_id, { input: say('hi') })),
      };
      await client.assistants.delete(yo.assistant_id);
      await client.assistants.delete(large.assistant_id);
      return out;
    },
  },
  {
    name: 'owner of an empty thread',
    covers: 'point 3: the documented owner handler, a thread created with {}',
    async run(side) {
      const client = side.client('owner-carol');
      const created = await client.threads.create();
      return {
        created: created.metadata,
        got: await outcome(async () => (await client.threads.get(created.thread_id)).metadata),
        other: await status(side.client('owner-dave').threads.get(created.thread_id)),
      };
    },
  },
  {
    name: 'middleware wraps the api',
    covers: 'point 8: http.app middleware on the built-in routes',
    async run(side) {
      const reply = await side.http('POST', '/assistants/search', { body: { limit: 1 }, keepHeaders: ['x-differential-middleware'] });
      return { status: reply.status, headers: reply.headers };
    },
  },
  {
    name: 'delete assistant with threads',
    covers: 'point 9: DELETE /assistants/{id}?delete_threads=true',
    async run(side) {
      const client = side.client();
      const assistant = await client.assistants.create({ graphId: 'chat' });
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: say('x') });
      await side.http('DELETE', `/assistants/${assistant.assistant_id}?delete_threads=true`);
      return { thread: await status(client.threads.get(thread.thread_id)) };
    },
  },
  {
    name: 'one thread, two graphs',
    covers: 'point 10: runs of two graphs on one thread continue one state',
    async run(side) {
      const { client, threadId } = await threadAfterRun(side, 'chat', 'first');
      await client.runs.wait(threadId, await system(side, 'factory'), { input: say('second') });
      return { state: chat((await client.threads.getState(threadId)).values) };
    },
  },
  {
    name: 'module state across runs',
    covers: 'point 11: a graph keeping per-thread state in its module sees every run of the thread',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const assistant = await system(side, 'visits');
      const replies = [];
      for (const text of ['a', 'b', 'c', 'd']) replies.push(chat(await client.runs.wait(thread.thread_id, assistant, { input: say(text) })).at(-1));
      return { replies };
    },
  },

  // ── schemas (point 7), last: the upstream server's TypeScript parse, started before the
  // scenarios, has had time to finish ────────────────────────────────────────────────
  {
    name: 'schemas of a zod graph',
    covers: 'point 7: assistants.getSchemas of a Zod state/context graph (types, enums, defaults, langgraph_type)',
    async run(side) {
      return { typed: await side.client().assistants.getSchemas(await system(side, 'typed')) };
    },
  },
  {
    name: 'schemas of a typescript graph',
    covers: 'point 7: assistants.getSchemas of an Annotation graph (static TypeScript extraction)',
    async run(side) {
      // `parent`, as 'subgraph schemas': upstream parses a graph's TypeScript once (~30 s)
      return { parent: await side.client().assistants.getSchemas(await system(side, 'parent')) };
    },
  },
  {
    name: 'subgraph schemas',
    covers: 'points 5, 7: assistants.getSubgraphs (namespaces and their schemas)',
    async run(side) {
      const client = side.client();
      const id = await system(side, 'parent');
      return { all: await client.assistants.getSubgraphs(id), recursive: await client.assistants.getSubgraphs(id, { recurse: true }) };
    },
  },
  {
    name: 'schemas of declared input and output',
    covers:
      'issue 90, point 1: assistants.getSchemas of `new StateGraph({ stateSchema, input, output })` over Annotation.Root, Zod and StateSchema, and `({ stateSchema, input }, Config)`; their runs answer the whole state',
    async run(side) {
      const client = side.client();
      const out: Record<string, unknown> = {};
      for (const [graph, input] of [
        ['io_annotations', { question: 'why' }],
        ['io_zod', { question: 'why' }],
        ['io_state_schema', { question: 'why' }],
        ['io_config', { topic: 'otters' }],
      ] as const) {
        const id = await system(side, graph);
        const thread = await client.threads.create();
        const streamed = await collect(client.runs.stream(thread.thread_id, id, { input, streamMode: ['values', 'updates'] }));
        out[graph] = { schemas: await client.assistants.getSchemas(id), waited: await client.runs.wait(null, id, { input }), streamed };
      }
      return out;
    },
  },
  {
    name: 'schemas of an annotation graph with a config',
    covers: 'issue 52, point 5: config_schema and context_schema from a config Annotation, literal unions as enums, a subgraph typed the same way',
    async run(side) {
      const client = side.client();
      const id = await system(side, 'configured');
      return { schemas: await client.assistants.getSchemas(id), subgraphs: await client.assistants.getSubgraphs(id, { recurse: true }) };
    },
  },
];
