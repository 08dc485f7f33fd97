// Every public method of `client.threads` of @langchain/langgraph-sdk (the pinned 1.12.4)
// against a real agentplane on loopback, with both shipped graphs: `agent` (LangGraph) and
// `echo` (a plain function). History, forks and time travel included.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, type ThreadState } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

type Msg = { type: string; content: unknown; id?: string };
const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const messagesOf = (values: unknown) => (values as { messages?: Msg[] } | null)?.messages ?? [];
/** The SDK types updateState's answer as a config; both upstream servers answer `{checkpoint}`. */
const update = async (p: Promise<unknown>) => (await p) as { checkpoint: { thread_id: string; checkpoint_ns: string; checkpoint_id: string } };
const transcript = (values: unknown) => messagesOf(values).map((m) => `${m.type}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
const lastText = (values: unknown) => transcript(values).at(-1);

describe('client.threads against agentplane', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', { project: testProject });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
  });
  after(() => server.close());

  it('refuses a state update while a run is in flight (409), and takes it after', async () => {
    const thread = await client.threads.create({ graphId: 'slow' });
    const run = await client.runs.create(thread.thread_id, 'slow', { input: say('one'), context: { delay_ms: 30_000 } });
    await assert.rejects(
      client.threads.updateState(thread.thread_id, { values: say('two') }),
      (err: { status?: number; message: string }) => err.status === 409 && /busy/.test(err.message),
    );
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    const { checkpoint } = await update(client.threads.updateState(thread.thread_id, { values: say('two') }));
    assert.equal(lastText((await client.threads.getState(thread.thread_id, checkpoint.checkpoint_id!)).values), 'human:two');
  });

  it('joinStream: the events of each run on the thread, resumable across runs, until the client leaves', async () => {
    const thread = await client.threads.create({ graphId: 'echo' });
    const controller = new AbortController();
    const seen: { event: string; id?: string; data: any }[] = [];
    const reading = (async () => {
      try {
        for await (const part of client.threads.joinStream(thread.thread_id, { signal: controller.signal })) {
          seen.push(part as never);
          if (seen.filter((p) => p.event === 'metadata' && p.data?.status === 'run_done').length === 2) controller.abort();
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
      }
    })();
    // both runs are created after the reader joined; it follows one after the other
    await new Promise((resolve) => setTimeout(resolve, 100));
    const first = await client.runs.create(thread.thread_id, 'echo', { input: say('one') });
    await client.runs.join(thread.thread_id, first.run_id);
    const second = await client.runs.create(thread.thread_id, 'echo', { input: say('two') });
    await reading;
    const done = seen.filter((p) => p.event === 'metadata' && p.data?.status === 'run_done').map((p) => p.data.run_id);
    assert.deepEqual(done, [first.run_id, second.run_id]);
    const values = seen.filter((p) => p.event === 'values').map((p) => lastText(p.data));
    assert.deepEqual(values, ['human:one', 'ai:one', 'human:two', 'ai:two']);

    // lifecycle: only the runs' start and end; resuming after the first run's end skips it
    const firstEnd = await (async () => {
      const lifecycle: { event: string; data: any; id?: string }[] = [];
      const stop = new AbortController();
      try {
        for await (const part of client.threads.joinStream(thread.thread_id, {
          signal: stop.signal,
          streamMode: 'lifecycle',
          lastEventId: `${first.run_id}:0`,
        })) {
          lifecycle.push(part as never);
          if (lifecycle.length === 3) stop.abort();
        }
      } catch (err) {
        if (!stop.signal.aborted) throw err;
      }
      return lifecycle;
    })();
    assert.deepEqual(
      firstEnd.map((p) => [p.event, p.data.run_id, p.data.status ?? 'start']),
      [
        ['metadata', first.run_id, 'run_done'],
        ['metadata', second.run_id, 'start'],
        ['metadata', second.run_id, 'run_done'],
      ],
    );

    await assert.rejects(
      (async () => {
        for await (const _ of client.threads.joinStream('00000000-0000-4000-8000-000000000000')) void _;
      })(),
      (err: { status?: number }) => err.status === 404,
    );
  });

  for (const graph of ['agent', 'echo'] as const) {
    describe(`with the ${graph} graph`, () => {
      const expectedAnswer = graph === 'agent' ? 'ai:The answer is 42.' : 'ai:what is 6 * 7?';

      it('create, get, update, search, count, copy, delete', async () => {
        const thread = await client.threads.create({ metadata: { owner: 'alice', kind: graph }, graphId: graph, ttl: 60 });
        assert.equal(thread.status, 'idle');
        assert.equal(thread.metadata?.graph_id, graph);
        const withTtl = await client.threads.get(thread.thread_id, { include: ['ttl'] });
        assert.equal((withTtl as unknown as { ttl: { ttl_minutes: number; strategy: string } }).ttl.ttl_minutes, 60);
        assert.equal((withTtl as unknown as { ttl: { strategy: string } }).ttl.strategy, 'delete');
        assert.equal('ttl' in (await client.threads.get(thread.thread_id)), false);

        await client.runs.wait(thread.thread_id, graph, { input: say('what is 6 * 7?') });
        const updated = await client.threads.update(thread.thread_id, { metadata: { title: 'Arithmetic' } });
        assert.equal(updated.metadata?.title, 'Arithmetic');
        assert.equal(updated.metadata?.owner, 'alice', 'metadata is merged, not replaced');
        assert.equal(lastText(updated.values), expectedAnswer);
        const minimal = await client.threads.update(thread.thread_id, { metadata: { minimal: true }, returnMinimal: true });
        assert.equal(minimal, undefined as never);
        assert.equal((await client.threads.get(thread.thread_id)).metadata?.minimal, true);

        const found = await client.threads.search({ metadata: { title: 'Arithmetic', kind: graph } });
        assert.deepEqual(
          found.map((t) => t.thread_id),
          [thread.thread_id],
        );
        assert.equal(await client.threads.count({ metadata: { title: 'Arithmetic', kind: graph } }), 1);
        assert.equal(await client.threads.count({ metadata: { kind: graph }, status: 'busy' }), 0);

        const copy = await client.threads.copy(thread.thread_id);
        assert.notEqual(copy.thread_id, thread.thread_id);
        assert.equal(copy.status, 'idle');
        assert.equal(copy.metadata?.title, 'Arithmetic');
        assert.deepEqual(transcript(copy.values), transcript(updated.values));
        const originalHistory = await client.threads.getHistory(thread.thread_id, { limit: 100 });
        const copiedHistory = await client.threads.getHistory(copy.thread_id, { limit: 100 });
        assert.deepEqual(
          copiedHistory.map((s) => s.checkpoint.checkpoint_id),
          originalHistory.map((s) => s.checkpoint.checkpoint_id),
          'the copy has the whole history',
        );
        // the copy lives on by itself: a run on it leaves the original alone
        await client.runs.wait(copy.thread_id, graph, { input: say('what is 2 + 2?') });
        assert.equal(transcript((await client.threads.getState(thread.thread_id)).values).length, transcript(updated.values).length);
        assert.equal(await client.threads.count({ metadata: { title: 'Arithmetic', kind: graph } }), 2);

        await client.threads.delete(copy.thread_id);
        await assert.rejects(client.threads.get(copy.thread_id), (err: { status?: number }) => err.status === 404);
        await assert.rejects(client.threads.copy(copy.thread_id), (err: { status?: number }) => err.status === 404);
      });

      it('keeps every checkpoint: history, state at a checkpoint, forks and time travel', async () => {
        const thread = await client.threads.create({ graphId: graph });
        assert.deepEqual(await client.threads.getHistory(thread.thread_id), [], 'a thread that never ran has no history');
        await client.runs.wait(thread.thread_id, graph, { input: say('what is 6 * 7?') });
        await client.runs.wait(thread.thread_id, graph, { input: say('what is 2 + 3?') });
        const answer2 = graph === 'agent' ? 'ai:The answer is 5.' : 'ai:what is 2 + 3?';
        const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
        // each run: an input checkpoint, then one per step (agent: __start__, agent, tools, agent)
        assert.equal(history.length, graph === 'agent' ? 10 : 4);
        const ids = history.map((s) => s.checkpoint.checkpoint_id);
        assert.deepEqual([...ids].sort().reverse(), ids, 'newest first');
        for (const [i, state] of history.entries()) {
          if (i + 1 < history.length) assert.equal(state.parent_checkpoint?.checkpoint_id, history[i + 1].checkpoint.checkpoint_id);
        }
        assert.equal(history.at(-1)!.parent_checkpoint, null);
        assert.equal(lastText(history[0].values), answer2);
        assert.deepEqual(history.map((s) => s.metadata?.source).filter((s) => s === 'input').length, 2);

        // paging and filters
        const page = await client.threads.getHistory(thread.thread_id, { limit: 2 });
        assert.deepEqual(
          page.map((s) => s.checkpoint.checkpoint_id),
          ids.slice(0, 2),
        );
        const older = await client.threads.getHistory(thread.thread_id, { limit: 2, before: page[1].checkpoint as never });
        assert.deepEqual(
          older.map((s) => s.checkpoint.checkpoint_id),
          ids.slice(2, 4),
        );
        const inputs = await client.threads.getHistory(thread.thread_id, { limit: 100, metadata: { source: 'input' } });
        assert.equal(inputs.length, 2);
        assert.ok(inputs.every((s) => s.metadata?.source === 'input'));
        const viaGet = await (await server.api(`/threads/${thread.thread_id}/history?limit=3&before=${ids[0]}`)).json();
        assert.deepEqual(
          (viaGet as ThreadState[]).map((s) => s.checkpoint.checkpoint_id),
          ids.slice(1, 4),
        );

        // the state where the second question was just asked (echo: the run's input
        // checkpoint; agent: the step after __start__ read the input), both ways
        const secondInput = history.findLast((s) => lastText(s.values) === 'human:what is 2 + 3?')!;
        assert.deepEqual(secondInput.next, [graph]);
        const atId = await client.threads.getState(thread.thread_id, secondInput.checkpoint.checkpoint_id!);
        const atObject = await client.threads.getState(thread.thread_id, { checkpoint_id: secondInput.checkpoint.checkpoint_id } as never);
        assert.deepEqual(transcript(atId.values), transcript(secondInput.values));
        assert.deepEqual(atObject.values, atId.values);
        assert.equal(lastText(atId.values), 'human:what is 2 + 3?');
        await assert.rejects(
          client.threads.getState(thread.thread_id, '1f000000-0000-6000-8000-000000000000'),
          (err: { status?: number }) => err.status === 404,
        );

        // fork: run again from the first run's final checkpoint with different input
        const firstFinal = history.find((s) => lastText(s.values) === expectedAnswer && s.next.length === 0)!;
        const forked = await client.runs.wait(thread.thread_id, graph, {
          input: say('what is 10 - 4?'),
          checkpoint: { checkpoint_id: firstFinal.checkpoint.checkpoint_id } as never,
        });
        const answer3 = graph === 'agent' ? 'ai:The answer is 6.' : 'ai:what is 10 - 4?';
        assert.equal(lastText(forked), answer3);
        const state = await client.threads.getState(thread.thread_id);
        assert.deepEqual(
          transcript(state.values).filter((m) => m.startsWith('human:')),
          ['human:what is 6 * 7?', 'human:what is 10 - 4?'],
          'the fork keeps the messages before its checkpoint and drops the later branch',
        );
        // both branches stay in the history
        const after = await client.threads.getHistory(thread.thread_id, { limit: 100 });
        assert.equal(after.length, history.length + (graph === 'agent' ? 5 : 2));
        assert.ok(after.some((s) => s.checkpoint.checkpoint_id === history[0].checkpoint.checkpoint_id));

        // time travel: re-run from an input checkpoint without input (regenerate)
        const regenerated = await client.runs.wait(thread.thread_id, graph, { input: null, checkpointId: secondInput.checkpoint.checkpoint_id! });
        assert.equal(lastText(regenerated), answer2);
        assert.deepEqual(
          transcript(regenerated).filter((m) => m.startsWith('human:')),
          ['human:what is 6 * 7?', 'human:what is 2 + 3?'],
        );
      });

      it('updateState (values, as_node, checkpoint) and patchState', async () => {
        const thread = await client.threads.create({ graphId: graph });
        await client.runs.wait(thread.thread_id, graph, { input: say('what is 6 * 7?') });
        const head = await client.threads.getState(thread.thread_id);
        const asNode = graph === 'agent' ? 'agent' : 'echo';
        const { checkpoint } = await update(
          client.threads.updateState(thread.thread_id, {
            values: { messages: [{ type: 'ai', content: 'edited by a human', id: 'edit-1' }] },
            asNode,
          }),
        );
        assert.equal(checkpoint.thread_id, thread.thread_id);
        const edited = await client.threads.getState(thread.thread_id);
        assert.equal(edited.checkpoint.checkpoint_id, checkpoint.checkpoint_id);
        assert.equal(edited.parent_checkpoint?.checkpoint_id, head.checkpoint.checkpoint_id);
        assert.equal(lastText(edited.values), 'ai:edited by a human');
        assert.equal(edited.metadata?.source, 'update');
        assert.deepEqual(edited.next, []);
        assert.equal(lastText((await client.threads.get(thread.thread_id)).values), 'ai:edited by a human');

        // an update replaces a message by id (add_messages), forking from an older checkpoint
        const firstHuman = messagesOf(head.values)[0];
        const fork = await update(
          client.threads.updateState(thread.thread_id, {
            values: { messages: [{ ...firstHuman, content: 'what is 7 * 8?' }] },
            asNode: graph === 'agent' ? 'tools' : '__input__',
            checkpoint: { checkpoint_id: head.checkpoint.checkpoint_id } as never,
          }),
        );
        const forkState = await client.threads.getState(thread.thread_id, fork.checkpoint.checkpoint_id!);
        assert.equal(transcript(forkState.values)[0], 'human:what is 7 * 8?');
        assert.equal(forkState.parent_checkpoint?.checkpoint_id, head.checkpoint.checkpoint_id);
        if (graph === 'agent') assert.deepEqual(forkState.next, ['agent'], 'as the tools node: the agent runs next');

        // the deprecated checkpointId form
        const viaId = await update(client.threads.updateState(thread.thread_id, { values: null, checkpointId: head.checkpoint.checkpoint_id! }));
        assert.equal(
          (await client.threads.getState(thread.thread_id, viaId.checkpoint.checkpoint_id!)).parent_checkpoint?.checkpoint_id,
          head.checkpoint.checkpoint_id,
        );

        await assert.rejects(
          client.threads.updateState(thread.thread_id, { values: { messages: [] }, asNode: 'nowhere' }),
          (err: { status?: number }) => err.status === 400,
        );
        await assert.rejects(
          client.threads.updateState(thread.thread_id, { values: {}, checkpoint: { checkpoint_id: '1f000000-0000-6000-8000-000000000000' } as never }),
          (err: { status?: number }) => err.status === 404,
        );

        await client.threads.patchState(thread.thread_id, { reviewed: true });
        const patched = await client.threads.getState(thread.thread_id);
        assert.equal(patched.metadata?.reviewed, true);
        assert.equal(patched.checkpoint.checkpoint_id, viaId.checkpoint.checkpoint_id, 'no new checkpoint');
        await client.threads.patchState({ configurable: { thread_id: thread.thread_id } }, { reviewed: 'twice' });
        assert.equal((await client.threads.getState(thread.thread_id)).metadata?.reviewed, 'twice');
      });

      it('creates a thread from supersteps', async () => {
        const question = { messages: [{ type: 'human', content: 'what is 1 + 1?', id: 'human-1' }] };
        const thread = await client.threads.create({
          graphId: graph,
          // the upstream recipe for recreating a thread: the input, its start step, then node writes
          supersteps: [
            { updates: [{ values: question, asNode: '__input__' }] },
            { updates: [{ values: question, asNode: '__start__' }] },
            { updates: [{ values: { messages: [{ type: 'ai', content: 'It is 2.', id: 'ai-1' }] }, asNode: graph }] },
          ],
        });
        assert.deepEqual(transcript(thread.values), ['human:what is 1 + 1?', 'ai:It is 2.']);
        const history = await client.threads.getHistory(thread.thread_id);
        assert.ok(history.length >= 2);
        // and it runs on from there
        const next = await client.runs.wait(thread.thread_id, graph, { input: say('what is 3 * 3?') });
        assert.equal(transcript(next).at(-1), graph === 'agent' ? 'ai:The answer is 9.' : 'ai:what is 3 * 3?');
        await assert.rejects(
          client.threads.create({ supersteps: [{ updates: [{ values: say('no graph'), asNode: '__input__' }] }] }),
          (err: { status?: number }) => err.status === 400,
        );
      });

      it('prune: keep_latest keeps the latest state only; delete removes the threads', async () => {
        const a = await client.threads.create({ graphId: graph });
        const b = await client.threads.create({ graphId: graph });
        for (const t of [a, b]) {
          await client.runs.wait(t.thread_id, graph, { input: say('what is 6 * 7?') });
          await client.runs.wait(t.thread_id, graph, { input: say('what is 2 + 3?') });
        }
        const before = await client.threads.getState(a.thread_id);
        assert.deepEqual(await client.threads.prune([a.thread_id, '00000000-0000-4000-8000-000000000000'], { strategy: 'keep_latest' }), { pruned_count: 1 });
        const history = await client.threads.getHistory(a.thread_id, { limit: 100 });
        assert.equal(history.length, 1);
        assert.deepEqual(history[0].values, before.values);
        assert.deepEqual((await client.threads.getState(a.thread_id)).values, before.values);
        // and the thread goes on
        const next = await client.runs.wait(a.thread_id, graph, { input: say('what is 1 + 1?') });
        assert.equal(transcript(next).filter((m) => m.startsWith('human:')).length, 3);

        assert.deepEqual(await client.threads.prune([a.thread_id, b.thread_id]), { pruned_count: 2 });
        await assert.rejects(client.threads.get(a.thread_id), (err: { status?: number }) => err.status === 404);
        await assert.rejects(client.threads.get(b.thread_id), (err: { status?: number }) => err.status === 404);
      });
    });
  }
});
