// Plain-function graphs on the protocol's thread stream (issue 90): every channel their run
// has reaches it, shaped and ordered as LangGraph's one-node graph's (its returned messages
// whole, as content-block events in the node's namespace), and numbered without a gap — a plain run's `custom` and `updates` (and its steps' `tasks` and checkpoints) had gone
// to its log as run-stream events, hidden from the stream while they took up numbers. In
// process, with graphs on the request loop and in run workers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { api, events, rootEnd, type ProtocolEvent } from '../../support/protocolEvents.ts';
import { Event as isEvent } from '../../../generated/protocol/components.validators.gen.js';

const ALL = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'];
const say = (content: string) => ({ messages: [{ role: 'user', content }] });
/** An event's method, with its node or (in a node's namespace) what it says there. */
const shape = (e: ProtocolEvent) =>
  e.params.namespace.length > 0 ? `${e.method}:${e.params.data.event}` : `${e.method}${e.params.node ? `(${e.params.node})` : ''}`;

for (const workers of ['0', 'default']) {
  describe(`protocol v2: a plain-function graph's run (AGENTPLANE_RUN_WORKERS=${workers})`, () => {
    let server: InProcessApp;
    let post: ReturnType<typeof api>;
    before(async () => {
      server = await areaApp('agent-server', { project: { graphs: { echo: './examples/graphs/echo.ts:echo' } }, dataDir: null, runWorkers: workers });
      post = api(server, server.key);
    });
    after(() => server.close());

    const run = async (threadId: string, content: string) => {
      const started = (await (
        await post(`/threads/${threadId}/commands`, { id: 1, method: 'run.start', params: { assistant_id: 'echo', input: say(content) } })
      ).json()) as {
        type: string;
      };
      assert.equal(started.type, 'success');
    };

    it('sends values, tasks, custom, messages, updates and checkpoints, numbered 1, 2, 3… with no gap, across runs', { timeout: 30_000 }, async () => {
      const threadId = randomUUID();
      await run(threadId, 'hi');
      const first = await events(await post(`/threads/${threadId}/stream/events`, { channels: ALL }), rootEnd);
      // a one-node LangGraph graph's sequence: its returned message whole, in the node's namespace
      assert.deepEqual(first.map(shape), [
        'lifecycle',
        'checkpoints',
        'values',
        'tasks',
        'custom',
        'lifecycle:started',
        'messages:message-start',
        'messages:content-block-start',
        'messages:content-block-delta',
        'messages:content-block-finish',
        'messages:message-finish',
        'updates(echo)',
        'tasks',
        'lifecycle:completed',
        'checkpoints',
        'values',
        'lifecycle',
      ]);
      assert.deepEqual(
        first.map((e) => e.seq),
        first.map((_, i) => i + 1),
      );
      // each one an event of its channel as spec/protocol.openrpc.json describes it
      for (const e of first) assert.ok(isEvent(e), `${e.method}: ${JSON.stringify(isEvent.errors)}`);
      const [, input, , start, custom, started, ...rest] = first;
      const said = rest.slice(0, 5);
      const [update, result, completed, loop, end] = rest.slice(5);
      const namespace = [`echo:${start.params.data.id}`];
      assert.deepEqual(started.params.namespace, namespace);
      assert.deepEqual(started.params.data, { event: 'started', graph_name: 'echo' });
      assert.deepEqual(completed.params.data, { event: 'completed', graph_name: 'echo' });
      assert.ok(said.every((e) => e.params.namespace[0] === namespace[0] && e.params.data.run_id === said[0].params.data.run_id));
      assert.equal(said[0].params.data.id, update.params.data.messages[0].id);
      assert.deepEqual(said[2].params.data.delta, { type: 'text-delta', text: 'hi' });
      assert.deepEqual(said[3].params.data.content, { type: 'text', text: 'hi' });
      assert.deepEqual(custom.params, { namespace: [], timestamp: custom.params.timestamp, data: { payload: { echoing: 1 } } });
      assert.deepEqual(
        update.params.data.messages.map((m: { type: string; content: string }) => [m.type, m.content]),
        [['ai', 'hi']],
      );
      assert.equal(start.params.data.name, 'echo');
      assert.equal(result.params.data.id, start.params.data.id);
      assert.equal(result.params.data.result.messages[0].content, 'hi');
      assert.deepEqual(input.params.data, { id: input.params.data.id, step: -1, source: 'input' });
      assert.deepEqual(loop.params.data, { id: loop.params.data.id, parent_id: input.params.data.id, step: 0, source: 'loop' });
      assert.deepEqual(
        end.params.data.messages.map((m: { content: string }) => m.content),
        ['hi', 'hi'],
      );

      // the thread's next run goes on from the last number
      await run(threadId, 'again');
      const next = await events(await post(`/threads/${threadId}/stream/events`, { channels: ALL, since: first.length }), rootEnd);
      assert.deepEqual(
        next.map((e) => e.seq),
        next.map((_, i) => first.length + 1 + i),
      );
      assert.ok(next.some((e) => e.method === 'custom') && next.some((e) => e.method === 'updates'));
    });

    it('a subscriber to custom or updates alone gets them', { timeout: 30_000 }, async () => {
      const threadId = randomUUID();
      await run(threadId, 'one two');
      const got = await events(await post(`/threads/${threadId}/stream/events`, { channels: ['custom', 'updates'] }), (e) => e.method === 'updates');
      assert.deepEqual(got.map(shape), ['custom', 'updates(echo)']);
      assert.deepEqual(
        got.map((e) => e.seq),
        [5, 12],
      );
    });
  });
}
