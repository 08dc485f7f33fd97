// Every public method of `client.runs` of @langchain/langgraph-sdk 1.12.4 against a real
// agentplane on loopback, with both shipped graphs (`echo`, a plain function; `agent`,
// LangGraph): stream, create, createBatch, wait, list, get, cancel, cancelMany, join,
// joinStream and delete — on a thread and stateless (threadId null).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const lastText = (values: any) => values.messages.at(-1).content;
const GRAPHS = [
  { graph: 'echo', question: 'hello there', answer: 'hello there' },
  { graph: 'agent', question: 'what is 6 * 7?', answer: 'The answer is 42.' },
];

let server: InProcessApp;
let client: Client;

before(async () => {
  server = await areaApp('agent-server', { project: testProject, dataDir: null });
  client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
});
after(() => server.close());

const status = (code: number) => (err: { status?: number }) => err.status === code;

async function collect(stream: AsyncIterable<{ event: string; data: any }>) {
  const events: { event: string; data: any }[] = [];
  for await (const chunk of stream) events.push(chunk);
  return events;
}

/** Resolves once the run has started (its stream has produced the metadata event). */
async function started(threadId: string | null, runId: string): Promise<void> {
  for await (const chunk of client.runs.joinStream(threadId, runId)) if (chunk.event === 'metadata') return;
}

for (const { graph, question, answer } of GRAPHS) {
  describe(`client.runs with the ${graph} graph`, () => {
    it('create, get, list, join, joinStream, wait and stream on a thread', async () => {
      const thread = await client.threads.create();
      let created: { run_id: string; thread_id?: string } | undefined;
      const run = await client.runs.create(thread.thread_id, graph, {
        input: say(question),
        metadata: { purpose: 'sdk-test' },
        onRunCreated: (meta) => (created = meta),
      });
      assert.equal(run.status, 'pending');
      assert.deepEqual(created, { run_id: run.run_id, thread_id: thread.thread_id });
      assert.equal(lastText(await client.runs.join(thread.thread_id, run.run_id)), answer);
      const got = await client.runs.get(thread.thread_id, run.run_id);
      assert.equal(got.status, 'success');
      // as upstream: the assistant's metadata, the thread's (with its graph and assistant), the request's
      assert.deepEqual(got.metadata, { created_by: 'system', graph_id: graph, assistant_id: run.assistant_id, purpose: 'sdk-test' });
      const listed = await client.runs.list(thread.thread_id, { status: 'success', select: ['run_id', 'status'] });
      assert.deepEqual(listed, [{ run_id: run.run_id, status: 'success' }]);
      // joining a finished run's stream replays what it kept
      const replay = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
      assert.deepEqual([replay[0].event, replay.at(-1)!.event], ['metadata', 'values']);
      assert.equal(lastText(replay.findLast((e) => e.event === 'values')!.data), answer);
      const waited = await client.runs.wait(thread.thread_id, graph, { input: say(question) });
      assert.equal(lastText(waited), answer);
      const streamed = await collect(client.runs.stream(thread.thread_id, graph, { input: say(question), streamMode: 'values' }));
      assert.equal(lastText(streamed.findLast((e) => e.event === 'values')!.data), answer);
      assert.equal((await client.runs.list(thread.thread_id)).length, 3);
    });

    it('stateless: create (temporary thread, deleted when the run ends), joinStream by run id, wait, stream', async () => {
      let created: { run_id: string; thread_id?: string } | undefined;
      const run = await client.runs.create(null, graph, { input: say(question), onRunCreated: (meta) => (created = meta) });
      assert.deepEqual(created, { run_id: run.run_id, thread_id: undefined }, 'Content-Location is /runs/{run_id}');
      const events = await collect(client.runs.joinStream(null, run.run_id));
      assert.deepEqual([events[0].event, events.at(-1)!.event], ['metadata', 'values']);
      assert.equal(lastText(events.findLast((e) => e.event === 'values')!.data), answer);
      // on_completion defaults to delete: the temporary thread is gone with the run
      await assert.rejects(client.threads.get(run.thread_id), status(404));
      assert.equal(lastText(await client.runs.wait(null, graph, { input: say(question) })), answer);
      const streamed = await collect(client.runs.stream(null, graph, { input: say(question), streamMode: ['values', 'updates'] }));
      assert.deepEqual([...new Set(streamed.map((e) => e.event))], ['metadata', 'values', 'updates']);
      assert.equal(lastText(streamed.findLast((e) => e.event === 'values')!.data), answer);
    });

    it('stateless with onCompletion keep: the thread stays with the run on it', async () => {
      let created: { run_id: string; thread_id?: string } | undefined;
      const result = await client.runs.wait(null, graph, {
        input: say(question),
        ...({ onCompletion: 'keep' } as object),
        onRunCreated: (meta) => (created = meta),
      });
      assert.equal(lastText(result), answer);
      const threadId = created!.thread_id!;
      assert.equal(lastText((await client.threads.getState(threadId)).values), answer);
      assert.equal((await client.runs.get(threadId, created!.run_id)).status, 'success');
    });

    it('createBatch: one stateless run per payload, in order', async () => {
      // the SDK sends each payload's own (camelCase) keys; agentplane reads them as snake_case
      const runs = await client.runs.createBatch([
        { assistantId: graph, input: say(question) },
        { assistantId: graph, input: say(question), onCompletion: 'keep' as never, metadata: { n: 2 } },
      ]);
      assert.equal(runs.length, 2);
      assert.notEqual(runs[0].thread_id, runs[1].thread_id);
      assert.deepEqual(runs[1].metadata, { created_by: 'system', n: 2 });
      const events = await collect(client.runs.joinStream(null, runs[0].run_id));
      assert.equal(lastText(events.findLast((e) => e.event === 'values')!.data), answer);
      assert.equal(lastText(await client.runs.join(runs[1].thread_id, runs[1].run_id)), answer, 'the kept thread');
      await assert.rejects(client.runs.createBatch([{ assistantId: graph }, { assistantId: 'no-such-graph' }]), status(404));
    });

    it('delete: a finished run is gone, the thread keeps its state', async () => {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, graph, { input: say(question) });
      await client.runs.join(thread.thread_id, run.run_id);
      await client.runs.delete(thread.thread_id, run.run_id);
      await assert.rejects(client.runs.get(thread.thread_id, run.run_id), status(404));
      await assert.rejects(client.runs.delete(thread.thread_id, run.run_id), status(404));
      assert.equal(lastText((await client.threads.getState(thread.thread_id)).values), answer);
    });
  });
}

describe('run options the SDK sends', () => {
  it('config.recursion_limit, interrupt_before / interrupt_after and command resume on the agent graph', async () => {
    const thread = await client.threads.create();
    await assert.rejects(client.runs.wait(thread.thread_id, 'agent', { input: say('what is 6 * 7?'), config: { recursion_limit: 2 } }), /GraphRecursionError/);
    const paused = await client.threads.create();
    // a stop at interrupt_before/after answers as upstream: `__interrupt__` with no interrupt (the state has the values)
    const before = await client.runs.wait(paused.thread_id, 'agent', { input: say('what is 6 * 7?'), interruptBefore: ['tools'] });
    assert.deepEqual(before, { __interrupt__: [] });
    const stopped = await client.threads.getState(paused.thread_id);
    assert.equal((stopped.values as any).messages.length, 2, 'stopped before the tool ran');
    assert.deepEqual(stopped.next, ['tools']);
    assert.deepEqual(Object.values((await client.threads.get(paused.thread_id)).interrupts), [[]], 'the waiting task, with no interrupt');
    const resumed = await client.runs.wait(paused.thread_id, 'agent', { input: null, interruptAfter: ['tools'] });
    assert.deepEqual(resumed, { __interrupt__: [] });
    assert.equal(lastText((await client.threads.getState(paused.thread_id)).values), '42', 'stopped again after the tool');
    assert.equal(lastText(await client.runs.wait(paused.thread_id, 'agent', { input: null })), 'The answer is 42.');
    const approval = await client.threads.create();
    const asked = await client.runs.wait(approval.thread_id, 'approval', { input: say('go') });
    assert.deepEqual((asked as any).__interrupt__[0].value, { question: 'Approve?' });
    assert.equal(lastText(await client.runs.wait(approval.thread_id, 'approval', { command: { resume: 'yes' } })), 'approved: yes');
  });
});

describe('client.runs cancel, cancelMany and delete of runs in flight', () => {
  it('cancel: 202 at once, wait=true until stopped; a finished run is left as it is', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'slow', { input: say('x'), context: { delay_ms: 30_000 } });
    await started(thread.thread_id, run.run_id);
    assert.equal(await client.runs.cancel(thread.thread_id, run.run_id), undefined);
    await client.runs.join(thread.thread_id, run.run_id);
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, 'interrupted');
    const done = await client.runs.create(thread.thread_id, 'echo', { input: say('y') });
    await client.runs.join(thread.thread_id, done.run_id);
    await client.runs.cancel(thread.thread_id, done.run_id, true);
    assert.equal((await client.runs.get(thread.thread_id, done.run_id)).status, 'success', 'too late: nothing changes');
    await assert.rejects(client.runs.cancel(thread.thread_id, crypto.randomUUID()), status(404));
  });

  it('cancelMany by thread and run ids, by thread alone, and by status', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, 'slow', { input: say('one'), context: { delay_ms: 30_000 } });
    const second = await client.runs.create(thread.thread_id, 'slow', { input: say('two'), context: { delay_ms: 30_000 } });
    await started(thread.thread_id, first.run_id);
    await client.runs.cancelMany({ threadId: thread.thread_id, runIds: [second.run_id] });
    assert.equal((await client.runs.get(thread.thread_id, second.run_id)).status, 'interrupted');
    assert.equal((await client.runs.get(thread.thread_id, first.run_id)).status, 'running');
    await client.runs.cancelMany({ threadId: thread.thread_id, action: 'rollback' });
    // the rolled-back run disappears once it has stopped: join ends then, or finds it gone
    await client.runs.join(thread.thread_id, first.run_id).catch((err: { status?: number }) => assert.equal(err.status, 404));
    await assert.rejects(client.runs.get(thread.thread_id, first.run_id), status(404), 'rolled back');

    const other = await client.threads.create();
    const queued = [
      await client.runs.create(other.thread_id, 'slow', { input: say('a'), context: { delay_ms: 30_000 } }),
      await client.runs.create(other.thread_id, 'slow', { input: say('b'), context: { delay_ms: 30_000 } }),
    ];
    await started(other.thread_id, queued[0].run_id);
    await client.runs.cancelMany({ status: 'pending' });
    assert.equal((await client.runs.get(other.thread_id, queued[1].run_id)).status, 'interrupted');
    assert.equal((await client.runs.get(other.thread_id, queued[0].run_id)).status, 'running');
    await client.runs.cancelMany({ status: 'all' });
    await client.runs.join(other.thread_id, queued[0].run_id);
    assert.equal((await client.runs.get(other.thread_id, queued[0].run_id)).status, 'interrupted');
    assert.equal((await client.threads.get(other.thread_id)).status, 'idle');

    // status within one thread (the SDK sends thread_id and status together)
    const busy = await client.threads.create();
    const elsewhere = await client.threads.create();
    const mine = [
      await client.runs.create(busy.thread_id, 'slow', { input: say('a'), context: { delay_ms: 30_000 } }),
      await client.runs.create(busy.thread_id, 'slow', { input: say('b'), context: { delay_ms: 30_000 } }),
    ];
    const theirs = [
      await client.runs.create(elsewhere.thread_id, 'slow', { input: say('c'), context: { delay_ms: 30_000 } }),
      await client.runs.create(elsewhere.thread_id, 'slow', { input: say('d'), context: { delay_ms: 30_000 } }),
    ];
    await started(busy.thread_id, mine[0].run_id);
    await client.runs.cancelMany({ threadId: busy.thread_id, status: 'pending' });
    assert.equal((await client.runs.get(busy.thread_id, mine[1].run_id)).status, 'interrupted');
    assert.equal((await client.runs.get(busy.thread_id, mine[0].run_id)).status, 'running');
    assert.equal((await client.runs.get(elsewhere.thread_id, theirs[1].run_id)).status, 'pending', 'another thread’s pending run stays');
    await client.runs.cancelMany({ status: 'all' });
    await assert.rejects(client.runs.cancelMany({ threadId: crypto.randomUUID(), status: 'all' }), status(404));

    await assert.rejects(client.runs.cancelMany({ runIds: [crypto.randomUUID()] }), status(404));
    await assert.rejects(client.runs.cancelMany({ threadId: crypto.randomUUID() }), status(404));
  });

  it('delete of a running run rolls it back first', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'echo', { input: say('kept') });
    const run = await client.runs.create(thread.thread_id, 'slow', { input: say('dropped'), context: { delay_ms: 30_000 } });
    await started(thread.thread_id, run.run_id);
    await client.runs.delete(thread.thread_id, run.run_id);
    await assert.rejects(client.runs.get(thread.thread_id, run.run_id), status(404));
    const values = (await client.threads.getState(thread.thread_id)).values as { messages: { content: string }[] };
    assert.deepEqual(
      values.messages.map((m) => m.content),
      ['kept', 'kept'],
    );
    assert.equal((await client.runs.list(thread.thread_id)).length, 1);
    assert.equal((await client.threads.get(thread.thread_id)).status, 'idle');
  });

  it('a stateless run cancelled while queued takes its temporary thread with it', async () => {
    const run = await client.runs.create(null, 'slow', { input: say('x'), context: { delay_ms: 30_000 }, afterSeconds: 60 });
    await client.runs.cancelMany({ runIds: [run.run_id] });
    await assert.rejects(client.threads.get(run.thread_id), status(404));
    // the run never started: its stream ends at once, with nothing in it
    const events = await collect(client.runs.joinStream(null, run.run_id));
    assert.deepEqual(
      events.map((e) => e.event),
      [],
    );
  });
});
