// The thread-centric streaming protocol ("protocol v2") at the wire, as upstream's server
// serves it: commands on POST /threads/{id}/commands, the thread's events on POST
// /threads/{id}/stream/events (SSE), numbered for the thread and replayable from `since`,
// filtered by channel, namespace and depth; interrupts as `input.requested`, resumed by
// `input.respond`; another tenant's thread answered as a missing one. In process: the same
// over the protocol's WebSocket is in test/runtime/transports/websocket/socketDoor.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { api, events, rootEnd } from '../../support/protocolEvents.ts';
import { CommandReply as isCommandReply } from '../../../generated/protocol/components.validators.gen.js';

const fixture = path.join(ROOT, 'test/fixtures/graphs/protocol.ts');
const graphs = { talk: `${fixture}:talk`, ask: `${fixture}:ask` };
const keyA = `key-a-${randomUUID()}`;
const keyB = `key-b-${randomUUID()}`;
const ALL = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'];

/** A message's text, its content a string or protocol content blocks. */
const textOf = (content: unknown): string => (typeof content === 'string' ? content : (content as { text?: string }[]).map((b) => b.text ?? '').join(''));

for (const workers of ['default', '0']) {
  describe(`protocol v2 (AGENTPLANE_RUN_WORKERS=${workers})`, () => {
    let server: InProcessApp;
    let a: ReturnType<typeof api>;
    let b: ReturnType<typeof api>;
    before(async () => {
      server = await areaApp('agent-server', {
        project: { graphs },
        compiledModules: true,
        dataDir: null,
        runWorkers: workers,
        env: {
          AGENTPLANE_AGENT_SERVER_AUTH: '1',
          AGENTPLANE_API_KEYS: `${keyA}:${randomUUID()},${keyB}:${randomUUID()}`,
        },
      });
      a = api(server, keyA);
      b = api(server, keyB);
    });
    after(() => server.close());

    it(
      'run.start makes the thread and runs; its events stream numbered for the thread, every channel, replayable from since',
      { timeout: 30_000 },
      async () => {
        const threadId = randomUUID();
        const started = (await (
          await a(`/threads/${threadId}/commands`, {
            id: 1,
            method: 'run.start',
            params: { assistant_id: 'talk', input: { messages: [{ role: 'user', content: 'hi' }] } },
          })
        ).json()) as any;
        assert.equal(started.type, 'success');
        assert.equal(started.id, 1);
        assert.match(started.result.run_id, /^[0-9a-f-]{36}$/);
        assert.deepEqual(started.meta, { thread_id: threadId, applied_through_seq: 0 });
        // multitask strategies as upstream: reject while a run is in flight
        const rejected = await a(`/threads/${threadId}/commands`, {
          id: 9,
          method: 'run.start',
          params: { assistant_id: 'talk', input: {}, multitaskStrategy: 'reject' },
        });
        assert.equal(rejected.status, 409);

        const all = await events(await a(`/threads/${threadId}/stream/events`, { channels: ALL }), rootEnd);
        assert.deepEqual(
          all.map((e) => e.seq),
          all.map((_, i) => i + 1),
        );
        assert.ok(all.every((e) => e.type === 'event' && e.event_id === String(e.seq) && typeof e.params.timestamp === 'number'));
        assert.deepEqual(all[0].params, { ...all[0].params, namespace: [], data: { event: 'running', graph_name: 'talk' } });
        assert.deepEqual(all.at(-1)!.params.data, { event: 'completed', graph_name: 'talk' });
        const methods = new Set(all.map((e) => e.method));
        for (const method of ['values', 'updates', 'messages', 'custom', 'tasks', 'checkpoints'])
          assert.ok(methods.has(method), `no ${method} event: ${[...methods]}`);
        // the model's answer, token by token, as content-block events
        const deltas = all.filter(
          (e) => e.method === 'messages' && e.params.data.event === 'content-block-delta' && e.params.namespace[0]?.startsWith('model:'),
        );
        assert.ok(deltas.length > 1, `${deltas.length} deltas`);
        assert.equal(deltas.map((e) => e.params.data.content_block?.text ?? e.params.data.delta?.text ?? '').join(''), 'hello there');
        // a node's update names the node; state messages in the protocol's shape
        const update = all.find((e) => e.method === 'updates' && e.params.node === 'model')!;
        assert.equal(update.params.data.messages[0].type, 'ai');
        assert.equal(textOf(update.params.data.messages[0].content), 'hello there');
        const last = all.findLast((e) => e.method === 'values' && e.params.namespace.length === 0)!;
        assert.deepEqual(
          last.params.data.messages.map((m: { type: string; content: unknown }) => [m.type, textOf(m.content)]),
          [
            ['human', 'hi'],
            ['ai', 'hello there'],
            ['ai', 'from the child'],
          ],
        );
        // the subgraph's events carry its namespace; its custom event too
        const custom = all.find((e) => e.method === 'custom')!;
        assert.deepEqual(custom.params.data, { payload: { step: 'inner' } });
        assert.match(custom.params.namespace[0], /^child:/);
        assert.ok(all.some((e) => e.method === 'lifecycle' && e.params.namespace.length === 1 && e.params.data.event === 'started'));

        // replay from since: exactly the later events
        const since = 5;
        const replay = await events(await a(`/threads/${threadId}/stream/events`, { channels: ALL, since }), rootEnd);
        assert.deepEqual(replay, all.slice(since));

        // channels, namespaces and depth filter
        const root = await events(await a(`/threads/${threadId}/stream/events`, { channels: ['lifecycle', 'values'], namespaces: [[]], depth: 0 }), rootEnd);
        assert.deepEqual(
          root,
          all.filter((e) => (e.method === 'lifecycle' || e.method === 'values') && e.params.namespace.length === 0),
        );
        const inChild = await events(
          await a(`/threads/${threadId}/stream/events`, { channels: ['custom', 'lifecycle'], namespaces: [['child']] }),
          (_e, got) => got.length === 3,
        );
        assert.ok(inChild.length > 0 && inChild.every((e) => e.params.namespace[0].startsWith('child:')));

        // the thread's next run numbers its events after the first run's
        const again = (await (
          await a(`/threads/${threadId}/commands`, {
            id: 2,
            method: 'run.start',
            params: { assistant_id: 'talk', input: { messages: [{ role: 'user', content: 'again' }] } },
          })
        ).json()) as any;
        assert.equal(again.meta.applied_through_seq, all.length);
        const next = await events(await a(`/threads/${threadId}/stream/events`, { channels: ['lifecycle'], since: all.length }), rootEnd);
        assert.equal(next[0].seq, all.length + 1);
        assert.deepEqual(next[0].params.data, { event: 'running', graph_name: 'talk' });

        const tree = (await (await a(`/threads/${threadId}/commands`, { id: 3, method: 'agent.getTree' })).json()) as any;
        assert.equal(tree.type, 'success');
        assert.equal(tree.result.tree.graph_name, 'talk');
        assert.equal(tree.result.tree.status, 'completed');
        assert.match(tree.result.tree.children[0].namespace[0], /^child:/);
        const state = (await (await a(`/threads/${threadId}/commands`, { id: 4, method: 'state.get', params: { keys: ['messages'] } })).json()) as any;
        assert.equal(state.result.values.messages.length, 6);
        assert.equal(typeof state.result.checkpoint.id, 'string');
      },
    );

    it('an interrupt arrives as input.requested, and input.respond resumes the run', { timeout: 30_000 }, async () => {
      const threadId = randomUUID();
      await a(`/threads/${threadId}/commands`, { id: 1, method: 'run.start', params: { assistant_id: 'ask', input: { messages: [] } } });
      const first = await events(await a(`/threads/${threadId}/stream/events`, { channels: ['lifecycle', 'input'] }), rootEnd);
      const requested = first.find((e) => e.method === 'input.requested')!;
      assert.deepEqual(requested.params.data.payload, { question: 'approve?' });
      assert.deepEqual(first.at(-1)!.params.data, { event: 'interrupted', graph_name: 'ask' });
      const wrong = (await (await a(`/threads/${threadId}/commands`, { id: 2, method: 'input.respond', params: {} })).json()) as any;
      assert.deepEqual(wrong, { type: 'error', id: 2, error: 'invalid_argument', message: 'input.respond requires an interrupt_id.' });
      // the thread is bound to the assistant its first run.start named, as upstream binds it
      assert.deepEqual(await (await a(`/threads/${threadId}/commands`, { id: 5, method: 'run.start', params: { assistant_id: 'talk', input: {} } })).json(), {
        type: 'error',
        id: 5,
        error: 'invalid_argument',
        message: `Thread ${threadId} is bound to assistant ask; cannot run talk.`,
      });
      const resumed = await (
        await a(`/threads/${threadId}/commands`, {
          id: 3,
          method: 'input.respond',
          params: { interrupt_id: requested.params.data.interrupt_id, response: 'yes' },
        })
      ).json();
      assert.deepEqual(resumed, { type: 'success', id: 3, result: {}, meta: { thread_id: threadId, applied_through_seq: first.at(-1)!.seq } });
      const rest = await events(await a(`/threads/${threadId}/stream/events`, { channels: ['lifecycle', 'values'], since: first.at(-1)!.seq }), rootEnd);
      assert.deepEqual(rest.at(-1)!.params.data, { event: 'completed', graph_name: 'ask' });
      assert.equal(rest.findLast((e) => e.method === 'values')!.params.data.decision, 'yes');
    });

    it('protocol errors come in its envelope', async () => {
      const threadId = randomUUID();
      assert.deepEqual(await (await a(`/threads/${threadId}/commands`, { id: 7, method: 'run.start', params: {} })).json(), {
        type: 'error',
        id: 7,
        error: 'invalid_argument',
        message: 'run.start requires an assistant_id.',
      });
      assert.deepEqual(await (await a(`/threads/${threadId}/commands`, { id: 8, method: 'agent.getTree' })).json(), {
        type: 'error',
        id: 8,
        error: 'no_such_run',
        message: 'No active run is bound to this thread.',
      });
      assert.equal((await a(`/threads/${threadId}/commands`, { method: 'run.start' })).status, 422);
      assert.equal((await a(`/threads/${threadId}/stream/events`, { channels: ['values'], extra: 1 })).status, 422);
    });

    it('commands are read as spec/protocol.openrpc.json says over HTTP', { timeout: 30_000 }, async () => {
      const threadId = randomUUID();
      const send = async (command: object) => (await a(`/threads/${threadId}/commands`, command)).json() as Promise<any>;
      const invalid = (id: number, message: string) => ({ type: 'error', id, error: 'invalid_argument', message });
      const replies = [
        // a strategy the contract does not name is refused (upstream's server quietly enqueues it)
        await send({ id: 1, method: 'run.start', params: { assistant_id: 'ask', input: {}, multitaskStrategy: 'sometimes' } }),
        await send({ id: 2, method: 'input.respond', params: { responses: [] } }),
        await send({ id: 3, method: 'input.respond', params: { responses: [{ response: 'yes' }] } }),
        await send({ id: 4, method: 'state.get', params: { keys: 'messages' } }),
      ];
      assert.equal(replies[0].error, 'invalid_argument');
      assert.match(replies[0].message, /multitaskStrategy/);
      assert.deepEqual(replies.slice(1, 3), [
        invalid(2, 'input.respond requires at least one response.'),
        invalid(3, 'input.respond responses entries require an interrupt_id.'),
      ]);
      assert.match(replies[3].message, /^state\.get: params\/keys /);
      for (const reply of replies) assert.ok(isCommandReply(reply), JSON.stringify(isCommandReply.errors));
    });

    it("another tenant's thread is answered as a missing one", async () => {
      const threadId = randomUUID();
      const started = (await (
        await a(`/threads/${threadId}/commands`, { id: 1, method: 'run.start', params: { assistant_id: 'ask', input: {} } })
      ).json()) as any;
      assert.equal(started.type, 'success');
      const missing = randomUUID();
      const theirs = await b(`/threads/${threadId}/stream/events`, { channels: ALL });
      const none = await b(`/threads/${missing}/stream/events`, { channels: ALL });
      assert.equal(theirs.status, 404);
      assert.equal(none.status, 404);
      assert.deepEqual(((await theirs.json()) as any).detail.replace(threadId, 'ID'), ((await none.json()) as any).detail.replace(missing, 'ID'));
      const respond = { id: 2, method: 'input.respond', params: { interrupt_id: 'x', response: 'yes' } };
      assert.deepEqual(await (await b(`/threads/${threadId}/commands`, respond)).json(), await (await b(`/threads/${missing}/commands`, respond)).json());
      const take = await b(`/threads/${threadId}/commands`, { id: 3, method: 'run.start', params: { assistant_id: 'ask', input: {} } });
      assert.equal(take.status, 404);
      assert.deepEqual((await b(`/threads/${threadId}/commands`, { id: 4, method: 'state.get' })).status, 404);
    });

    it("GET on the event stream without the upgrade is 426, as the spec documents (404 for a thread that is not the caller's)", async () => {
      const threadId = randomUUID();
      await a(`/threads/${threadId}/commands`, { id: 1, method: 'run.start', params: { assistant_id: 'ask', input: {} } });
      const get = (key: string) => server.fetch(`${server.url}/threads/${threadId}/stream/events`, { headers: { 'x-api-key': key } });
      const mine = await get(keyA);
      assert.equal(mine.status, 426);
      assert.equal(mine.headers.get('upgrade'), 'websocket');
      assert.match(((await mine.json()) as any).detail, /WebSocket/);
      assert.equal((await get(keyB)).status, 404);
    });
  });
}
