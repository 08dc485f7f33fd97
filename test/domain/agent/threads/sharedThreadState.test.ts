// One thread, any graph: runs of different graphs on one thread continue one state, in
// execution order, as upstream's graphs sharing a `messages` channel do — a plain-function
// graph after a LangGraph graph and the other way round, and two LangGraph graphs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serveWithClient } from '../../../support/sdkClient.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';
import type { ThreadState } from '@langchain/langgraph-sdk';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const runOf = (state: ThreadState) => (state.metadata as { run_id?: string } | undefined)?.run_id;
const idOf = (state: ThreadState) => state.checkpoint.checkpoint_id!;
const transcript = (values: unknown) => ((values as { messages?: { type: string; content: string }[] }).messages ?? []).map((m) => `${m.type}:${m.content}`);

describe('one thread, any graph', () => {
  const served = serveWithClient({ project: testProject, dataDir: null });

  it("a plain-function graph and a LangGraph graph continue each other's state", async () => {
    const { client } = served;
    const { thread_id: threadId } = await client.threads.create();
    await client.runs.wait(threadId, 'echo', { input: say('hi') });
    const afterAgent = await client.runs.wait(threadId, 'agent', { input: say('what is 6 * 7?') });
    const agentTurn = ['human:what is 6 * 7?', 'ai:', 'tool:42', 'ai:The answer is 42.'];
    assert.deepEqual(transcript(afterAgent), ['human:hi', 'ai:hi', ...agentTurn]);
    const afterEcho = await client.runs.wait(threadId, 'echo', { input: say('bye') });
    assert.deepEqual(transcript(afterEcho), ['human:hi', 'ai:hi', ...agentTurn, 'human:bye', 'ai:bye']);
    assert.deepEqual(transcript((await client.threads.getState(threadId)).values), transcript(afterEcho));
    // and back: the LangGraph graph sees what the plain one added after its own last run
    const again = await client.runs.wait(threadId, 'agent', { input: say('count these three words') });
    assert.deepEqual(transcript(again).slice(0, 8), transcript(afterEcho));
    assert.equal(transcript(again).at(-1), 'ai:Your message has 4 words.');
    assert.deepEqual(transcript((await client.threads.get(threadId)).values), transcript(again));
  });

  it('two LangGraph graphs continue one state, interrupts included', async () => {
    const { client } = served;
    const { thread_id: threadId } = await client.threads.create();
    await client.runs.wait(threadId, 'agent', { input: say('what is 6 * 7?') });
    await client.runs.wait(threadId, 'approval', { input: say('deploy?') });
    const resumed = await client.runs.wait(threadId, 'approval', { command: { resume: 'yes' } });
    assert.deepEqual(transcript(resumed), ['human:what is 6 * 7?', 'ai:', 'tool:42', 'ai:The answer is 42.', 'human:deploy?', 'ai:approved: yes']);
  });

  it("the history of a thread run by both kinds of graph lists every run's checkpoints, newest first, pageable across the boundary", async () => {
    const { client } = served;
    const { thread_id: threadId } = await client.threads.create();
    const runs: string[] = [];
    for (const [graph, text] of [
      ['echo', 'hi'],
      ['agent', 'what is 6 * 7?'],
      ['echo', 'bye'],
    ] as const) {
      const run = await client.runs.create(threadId, graph, { input: say(text) });
      await client.runs.join(threadId, run.run_id);
      runs.push(run.run_id);
    }
    const history = await client.threads.getHistory(threadId, { limit: 100 });
    // every run's checkpoints, the runs newest first, each run's checkpoints together
    const runOrder = history.map(runOf).filter((id, i, all) => id !== all[i - 1]);
    assert.deepEqual(runOrder, [...runs].reverse());
    assert.ok(history.filter((s) => runOf(s) === runs[1]).length > 2, "the LangGraph run's steps are listed");
    const times = history.map((s) => Date.parse(s.created_at!));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    // one sequence: each checkpoint's parent is the one listed after it, the first run's input has none
    history.forEach((state, i) =>
      assert.equal(state.parent_checkpoint?.checkpoint_id ?? null, history[i + 1] ? idOf(history[i + 1]) : null, `parent of checkpoint ${i}`),
    );
    assert.deepEqual(transcript(history[0].values), transcript((await client.threads.getState(threadId)).values));

    // pages of 2 and of 3, by `before`, walk the same list across both boundaries
    for (const size of [2, 3]) {
      const walked: string[] = [];
      let before: ThreadState['checkpoint'] | undefined;
      for (let pages = 0; pages <= history.length; pages += 1) {
        const page = await client.threads.getHistory(threadId, { limit: size, ...(before ? { before: before as never } : {}) });
        assert.ok(page.length <= size);
        if (page.length === 0) break;
        walked.push(...page.map(idOf));
        before = page.at(-1)!.checkpoint;
      }
      assert.deepEqual(walked, history.map(idOf), `pages of ${size}`);
    }
    // a page ends where its last checkpoint's parent is the first of the next page
    const firstPage = await client.threads.getHistory(threadId, { limit: 3 });
    assert.equal(firstPage.at(-1)!.parent_checkpoint?.checkpoint_id, idOf(history[3]));
    // filters apply to the merged list
    const byRun = await client.threads.getHistory(threadId, { limit: 100, metadata: { run_id: runs[1] } });
    assert.deepEqual(byRun.map(idOf), history.filter((s) => runOf(s) === runs[1]).map(idOf));
    const earlierEcho = await client.threads.getHistory(threadId, { limit: 1, metadata: { graph_id: 'echo' }, before: byRun.at(-1)!.checkpoint as never });
    assert.deepEqual(earlierEcho.map(idOf), [idOf(history.find((s) => runOf(s) === runs[0])!)]);

    // the state at every listed checkpoint, of either chain, reads back
    for (const listed of history) {
      const state = await client.threads.getState(threadId, idOf(listed));
      assert.equal(idOf(state), idOf(listed));
      assert.deepEqual(transcript(state.values), transcript(listed.values));
    }
  });

  it('a run forking from a checkpoint the other kind of graph wrote fails with a clear error and changes nothing', async () => {
    const { client } = served;
    const { thread_id: threadId } = await client.threads.create();
    await client.runs.wait(threadId, 'echo', { input: say('hi') });
    await client.runs.wait(threadId, 'agent', { input: say('what is 6 * 7?') });
    const before = await client.threads.getHistory(threadId, { limit: 100 });
    const ofGraph = (graph: string) => idOf(before.find((s) => (s.metadata as { graph_id?: string }).graph_id === graph)!);
    for (const [graph, checkpointId, writer] of [
      ['echo', ofGraph('agent'), 'LangGraph'],
      ['agent', ofGraph('echo'), 'plain-function'],
    ] as const) {
      const run = await client.runs.create(threadId, graph, { input: say('fork'), checkpointId });
      const result = (await client.runs.join(threadId, run.run_id)) as { __error__?: { message?: string } };
      assert.match(String(result.__error__?.message), new RegExp(`Checkpoint ${checkpointId} .*written by a ${writer} graph`));
      assert.equal((await client.runs.get(threadId, run.run_id)).status, 'error');
    }
    assert.deepEqual((await client.threads.getHistory(threadId, { limit: 100 })).map(idOf), before.map(idOf));
  });
});
