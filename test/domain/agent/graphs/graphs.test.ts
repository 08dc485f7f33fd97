// LangGraph.js graphs run with their state in agentplane's store: multi-step runs,
// interrupts and resume, state that survives a restart; threads run concurrently.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { tempDir } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const transcript = (values: unknown) => ((values as { messages: { type: string; content: string }[] }).messages ?? []).map((m) => `${m.type}:${m.content}`);

describe('graphs', () => {
  it('runs the multi-step agent and keeps its state across a restart', async () => {
    const dataDir = tempDir();
    let server = await areaApp('agent-server', { project: testProject, dataDir });
    let threadId: string;
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const thread = await client.threads.create();
      threadId = thread.thread_id;
      const nodes: string[] = [];
      for await (const chunk of client.runs.stream(threadId, 'agent', { input: say('what is 6 * 7?'), streamMode: 'updates' })) {
        if (chunk.event === 'updates') nodes.push(...Object.keys(chunk.data as object));
      }
      assert.deepEqual(nodes, ['agent', 'tools', 'agent']);
    } finally {
      await server.close();
    }
    server = await areaApp('agent-server', { project: testProject, dataDir });
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const before = await client.threads.getState(threadId);
      assert.deepEqual(transcript(before.values), ['human:what is 6 * 7?', 'ai:', 'tool:42', 'ai:The answer is 42.']);
      const result = await client.runs.wait(threadId, 'agent', { input: say('count these three words') });
      assert.equal(transcript(result).length, 8);
      assert.equal(transcript(result).at(-1), 'ai:Your message has 4 words.');
      const state = await client.threads.getState(threadId);
      assert.ok(state.checkpoint?.checkpoint_id);
      assert.deepEqual(state.next, []);
    } finally {
      await server.close();
    }
  });

  it('pauses at an interrupt and resumes with a command', async () => {
    const server = await areaApp('agent-server', { project: testProject, dataDir: null });
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const thread = await client.threads.create();
      const paused = (await client.runs.wait(thread.thread_id, 'approval', { input: say('deploy?') })) as Record<string, any>;
      assert.deepEqual(
        paused.__interrupt__.map((i: { value: unknown }) => i.value),
        [{ question: 'Approve?' }],
      );
      assert.equal((await client.threads.get(thread.thread_id)).status, 'interrupted');
      const state = await client.threads.getState(thread.thread_id);
      assert.deepEqual(state.next, ['ask']);
      const resumed = await client.runs.wait(thread.thread_id, 'approval', { command: { resume: 'yes' } });
      assert.deepEqual(transcript(resumed), ['human:deploy?', 'ai:approved: yes']);
      assert.equal((await client.threads.get(thread.thread_id)).status, 'idle');
    } finally {
      await server.close();
    }
  });

  it('runs different threads concurrently', async () => {
    const server = await areaApp('agent-server', { project: testProject, dataDir: null });
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const busy = await client.threads.create();
      const slow = await client.runs.create(busy.thread_id, 'slow', { input: say('later'), context: { delay_ms: 30_000 } });
      const other = await client.threads.create();
      const fast = await client.runs.wait(other.thread_id, 'echo', { input: say('now') });
      assert.deepEqual(transcript(fast), ['human:now', 'ai:now']);
      assert.equal((await client.runs.get(busy.thread_id, slow.run_id)).status, 'running');
      assert.equal((await client.threads.get(busy.thread_id)).status, 'busy');
      await client.runs.cancel(busy.thread_id, slow.run_id, true);
    } finally {
      await server.close();
    }
  });

  it('runs no more threads at once than AGENTPLANE_MAX_CONCURRENT_RUNS', async () => {
    const server = await areaApp('agent-server', { project: testProject, dataDir: null, env: { AGENTPLANE_MAX_CONCURRENT_RUNS: '1' } });
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
      const [a, b] = [await client.threads.create(), await client.threads.create()];
      const slow = await client.runs.create(a.thread_id, 'slow', { input: say('first'), context: { delay_ms: 30_000 } });
      for await (const chunk of client.runs.joinStream(a.thread_id, slow.run_id)) if (chunk.event === 'metadata') break;
      const waiting = await client.runs.create(b.thread_id, 'echo', { input: say('second') });
      assert.equal((await client.runs.get(b.thread_id, waiting.run_id)).status, 'pending');
      await client.runs.cancel(a.thread_id, slow.run_id);
      assert.deepEqual(transcript(await client.runs.join(b.thread_id, waiting.run_id)), ['human:second', 'ai:second']);
    } finally {
      await server.close();
    }
  });
});
