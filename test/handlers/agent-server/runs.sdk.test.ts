// The official LangGraph SDK client drives the server unmodified: threads, queued runs,
// multitask strategies, join, wait, state.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const transcript = (values: unknown) => ((values as { messages: { type: string; content: string }[] }).messages ?? []).map((m) => `${m.type}:${m.content}`);

/** Resolves once the run has started (its stream has produced the metadata event). */
async function started(client: Client, threadId: string, runId: string): Promise<void> {
  for await (const chunk of client.runs.joinStream(threadId, runId)) if (chunk.event === 'metadata') return;
}

describe('agent server through @langchain/langgraph-sdk', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', { project: testProject });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
  });
  after(() => server.close());

  it('runs 20 enqueued runs in the order they were created', async () => {
    const thread = await client.threads.create();
    const runs = [];
    for (let i = 0; i < 20; i += 1) {
      runs.push(await client.runs.create(thread.thread_id, 'echo', { input: say(`message ${i}`), multitaskStrategy: 'enqueue' }));
    }
    assert.equal(runs[0].status, 'pending');
    const result = await client.runs.join(thread.thread_id, runs[19].run_id);
    assert.equal(transcript(result).length, 40);
    const state = await client.threads.getState(thread.thread_id);
    const expected = Array.from({ length: 20 }, (_, i) => [`human:message ${i}`, `ai:message ${i}`]).flat();
    assert.deepEqual(transcript(state.values), expected);
    const messages = (state.values as { messages: { id: string }[] }).messages;
    assert.ok(messages.every((m) => typeof m.id === 'string' && m.id.length > 0));
    for (const run of runs) assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, 'success');
    const listed = await client.runs.list(thread.thread_id, { limit: 100 });
    assert.equal(listed.length, 20);
    assert.equal(listed[0].run_id, runs[19].run_id, 'newest first');
    assert.equal((await client.threads.get(thread.thread_id)).status, 'idle');
  });

  it('answers 409 to reject while a run is in flight, and stores nothing', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, 'slow', { input: say('one'), context: { delay_ms: 30_000 } });
    await assert.rejects(
      client.runs.create(thread.thread_id, 'echo', { input: say('two'), multitaskStrategy: 'reject' }),
      (err: { status?: number; message: string }) => err.status === 409 && /already running a task/.test(err.message),
    );
    assert.equal((await client.runs.list(thread.thread_id)).length, 1);
    await client.runs.cancel(thread.thread_id, first.run_id, true);
    assert.equal((await client.runs.get(thread.thread_id, first.run_id)).status, 'interrupted');
    const next = await client.runs.create(thread.thread_id, 'echo', { input: say('three'), multitaskStrategy: 'reject' });
    await client.runs.join(thread.thread_id, next.run_id);
    assert.deepEqual(transcript((await client.threads.getState(thread.thread_id)).values), ['human:three', 'ai:three']);
  });

  it('interrupt stops the run in flight (kept, status interrupted) and runs the new one', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, 'slow', { input: say('one'), context: { delay_ms: 30_000 } });
    await started(client, thread.thread_id, first.run_id);
    const queued = await client.runs.create(thread.thread_id, 'echo', { input: say('queued') });
    const second = await client.runs.create(thread.thread_id, 'echo', { input: say('two'), multitaskStrategy: 'interrupt' });
    await client.runs.join(thread.thread_id, second.run_id);
    assert.equal((await client.runs.get(thread.thread_id, first.run_id)).status, 'interrupted');
    assert.equal((await client.runs.get(thread.thread_id, queued.run_id)).status, 'interrupted');
    assert.equal((await client.runs.get(thread.thread_id, second.run_id)).status, 'success');
    assert.deepEqual(transcript((await client.threads.getState(thread.thread_id)).values), ['human:two', 'ai:two']);
    // joining an interrupted run answers the thread's values, like upstream
    assert.deepEqual(transcript(await client.runs.join(thread.thread_id, first.run_id)), ['human:two', 'ai:two']);
  });

  it('rollback deletes the runs in flight and keeps only the new run', async () => {
    const thread = await client.threads.create();
    const done = await client.runs.wait(thread.thread_id, 'echo', { input: say('zero') });
    assert.deepEqual(transcript(done), ['human:zero', 'ai:zero']);
    const first = await client.runs.create(thread.thread_id, 'slow', { input: say('one'), context: { delay_ms: 30_000 } });
    await started(client, thread.thread_id, first.run_id);
    const second = await client.runs.create(thread.thread_id, 'echo', { input: say('two'), multitaskStrategy: 'rollback' });
    await client.runs.join(thread.thread_id, second.run_id);
    await assert.rejects(client.runs.get(thread.thread_id, first.run_id), (err: { status?: number }) => err.status === 404);
    assert.deepEqual(transcript((await client.threads.getState(thread.thread_id)).values), ['human:zero', 'ai:zero', 'human:two', 'ai:two']);
  });

  it('a failing graph ends its run in error and the next queued run proceeds', async () => {
    const thread = await client.threads.create();
    const bad = await client.runs.create(thread.thread_id, 'flaky', { input: say('fail') });
    const good = await client.runs.create(thread.thread_id, 'flaky', { input: say('fine') });
    const failed = await client.runs.join(thread.thread_id, bad.run_id);
    assert.deepEqual(failed, { __error__: { error: 'TypeError', message: 'the graph was asked to fail' } });
    assert.equal((await client.runs.get(thread.thread_id, bad.run_id)).status, 'error');
    await client.runs.join(thread.thread_id, good.run_id);
    assert.equal((await client.runs.get(thread.thread_id, good.run_id)).status, 'success');
    assert.deepEqual(transcript((await client.threads.getState(thread.thread_id)).values), ['human:fine', 'ai:fine']);
    await assert.rejects(client.runs.wait(thread.thread_id, 'flaky', { input: say('fail') }), /TypeError: the graph was asked to fail/);
    assert.equal((await client.threads.get(thread.thread_id)).status, 'error');
  });

  it('streams metadata, values, updates and messages, then ends', async () => {
    const thread = await client.threads.create();
    const events: { event: string; data: any }[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, 'echo', { input: say('hello'), streamMode: ['values', 'updates', 'messages-tuple'] })) {
      events.push(chunk as { event: string; data: any });
    }
    assert.deepEqual(
      events.map((e) => e.event),
      ['metadata', 'values', 'updates', 'messages', 'values'],
    );
    assert.equal(events[0].data.attempt, 1);
    assert.deepEqual(transcript(events[4].data), ['human:hello', 'ai:hello']);
    assert.equal(events[3].data[0].content, 'hello');
    const failing: string[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, 'flaky', { input: say('fail') })) failing.push(chunk.event);
    // the error is the stream's last event: no `end` after it (the JS SDK would hand that to user code)
    assert.deepEqual(failing, ['metadata', 'values', 'error']);
  });

  it('creates a thread on the fly with ifNotExists and resolves assistants by graph name or uuid', async () => {
    const threadId = crypto.randomUUID();
    const result = await client.runs.wait(threadId, 'fe096781-5601-53d2-b2f6-0d3403f7e9ca', { input: say('what is 6 * 7?'), ifNotExists: 'create' });
    assert.equal(transcript(result).at(-1), 'ai:The answer is 42.');
    const thread = await client.threads.get(threadId);
    assert.equal((thread.metadata as Record<string, unknown>).graph_id, 'agent');
    assert.equal((await client.assistants.get('agent')).assistant_id, 'fe096781-5601-53d2-b2f6-0d3403f7e9ca');
    const found = await client.assistants.search({ graphId: 'echo' });
    assert.deepEqual(
      found.map((a) => a.name),
      ['echo'],
    );
    await assert.rejects(client.runs.create(crypto.randomUUID(), 'echo', { input: say('x') }), (err: { status?: number }) => err.status === 404);
    await assert.rejects(client.runs.create(threadId, 'no-such-graph', { input: say('x') }), (err: { status?: number }) => err.status === 404);
  });

  it('searches and deletes threads', async () => {
    const mine = await client.threads.create({ metadata: { owner: 'sdk-test' } });
    await client.threads.create({ threadId: mine.thread_id, ifExists: 'do_nothing' });
    await assert.rejects(client.threads.create({ threadId: mine.thread_id }), (err: { status?: number }) => err.status === 409);
    const found = await client.threads.search({ metadata: { owner: 'sdk-test' } });
    assert.deepEqual(
      found.map((t) => t.thread_id),
      [mine.thread_id],
    );
    await client.threads.delete(mine.thread_id);
    await assert.rejects(client.threads.get(mine.thread_id), (err: { status?: number }) => err.status === 404);
  });

  it('runs queued on one thread for different assistants each execute their own graph', async () => {
    // regression: a run used to execute the graph of the thread's latest run, read when it started
    const thread = await client.threads.create();
    const blocker = await client.runs.create(thread.thread_id, 'slow', { input: say('hold'), context: { delay_ms: 300 } });
    const viaEcho = await client.runs.create(thread.thread_id, 'echo', { input: say('one'), streamMode: ['updates'] });
    const viaSlow = await client.runs.create(thread.thread_id, 'slow', { input: say('two'), context: { delay_ms: 0 }, streamMode: ['updates'] });
    /** The graphs that reported an update (an `updates` event is keyed by the graph's node). */
    const graphsOf = async (runId: string) => {
      const nodes: string[] = [];
      for await (const chunk of client.runs.joinStream(thread.thread_id, runId)) {
        if (chunk.event === 'updates') nodes.push(...Object.keys(chunk.data as object));
      }
      return nodes;
    };
    // both followed live, from before the blocker ends (a finished run's log keeps no updates)
    assert.deepEqual(await Promise.all([graphsOf(viaEcho.run_id), graphsOf(viaSlow.run_id)]), [['echo'], ['slow']]);
    await client.runs.join(thread.thread_id, blocker.run_id);
    assert.deepEqual(transcript((await client.threads.getState(thread.thread_id)).values), [
      'human:hold',
      'ai:hold',
      'human:one',
      'ai:one',
      'human:two',
      'ai:two',
    ]);
  });
});
