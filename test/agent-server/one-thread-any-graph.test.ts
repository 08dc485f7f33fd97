// One thread, any graph: runs of different graphs on one thread continue one state, in
// execution order, as upstream's graphs sharing a `messages` channel do — a plain-function
// graph after a LangGraph graph and the other way round, and two LangGraph graphs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serveWithClient } from '../support/sdkClient.ts';
import { testProject } from './fixtures/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const transcript = (values: unknown) => ((values as { messages?: { type: string; content: string }[] }).messages ?? []).map((m) => `${m.type}:${m.content}`);

describe('one thread, any graph', () => {
  const served = serveWithClient({ project: testProject, dataDir: null });

  it('a plain-function graph and a LangGraph graph continue each other\'s state', async () => {
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
});
