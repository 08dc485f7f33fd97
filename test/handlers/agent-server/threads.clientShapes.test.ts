// The shapes clients read below the surface, as the upstream JS server sends them: a state's
// tasks (path, the pointer to a subgraph's state, that state, the result), debug-mode
// checkpoints naming themselves and their parent, message dicts with additional_kwargs and
// response_metadata, subgraph schemas under upstream's keys.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const fixture = (file: string, name: string) => `${path.join(ROOT, file)}:${name}`;
const say = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('shapes clients read', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', {
      project: {
        graphs: {
          inside: fixture('test/fixtures/agent-server/graphs.ts', 'approvalInside'),
          agent: fixture('examples/graphs/agent.ts', 'agent'),
          echo: fixture('examples/graphs/echo.ts', 'echo'),
        },
      },
      dataDir: null,
      // the subgraph schemas are read from the TypeScript source
      compiledModules: false,
    });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
  });
  after(() => server.close());

  it("a state's task names its path and where its subgraph's state is, which reads that state", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'inside', { input: say('deploy?') });
    const state = await client.threads.getState(thread.thread_id);
    const [task] = state.tasks as any[];
    assert.deepEqual(task.path, ['__pregel_pull', 'child']);
    assert.equal(task.checkpoint.thread_id, thread.thread_id);
    assert.match(task.checkpoint.checkpoint_ns, /^child:/);
    assert.deepEqual([task.state, task.result], [null, null]);
    assert.equal(state.checkpoint?.checkpoint_map, null);
    // the pointer reads the subgraph's own state (paused before its `ask` node)
    const inner = await client.threads.getState(thread.thread_id, task.checkpoint);
    assert.deepEqual(inner.next, ['ask']);
    assert.equal(inner.checkpoint?.checkpoint_ns, task.checkpoint.checkpoint_ns);
    assert.ok(inner.checkpoint?.checkpoint_map);
    // asked with subgraphs, the task carries that state instead
    const withSubgraphs = await client.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    const [expanded] = withSubgraphs.tasks as any[];
    assert.equal(expanded.checkpoint, null);
    assert.deepEqual(expanded.state.next, ['ask']);
    // upstream's keys exactly: the nested state lists no `interrupts` of its own (its tasks do)
    const keys = ['checkpoint', 'created_at', 'metadata', 'next', 'parent_checkpoint', 'tasks', 'values'];
    assert.deepEqual(Object.keys(expanded.state).sort(), keys);
    assert.equal(expanded.state.tasks[0].interrupts.length, 1);
  });

  it("a finished task's result is what its node returned", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'agent', { input: say('what is 6 * 7?') });
    const history = await client.threads.getHistory(thread.thread_id);
    const beforeTools = history.find((s) => s.next[0] === 'tools')!;
    const [task] = beforeTools.tasks as any[];
    assert.equal(task.name, 'tools');
    assert.equal(task.result.messages[0].type, 'tool');
    assert.equal(task.result.messages[0].content, '42');
  });

  it('history reads the same at every read, and a copy’s history is the same (a tool result stored without an id)', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'agent', { input: say('what is 6 * 7?') });
    const history = await client.threads.getHistory(thread.thread_id);
    assert.equal(JSON.stringify(await client.threads.getHistory(thread.thread_id)), JSON.stringify(history));
    const copy = await client.threads.copy(thread.thread_id);
    const copied = await client.threads.getHistory(copy.thread_id);
    const content = (states: typeof history) => states.map(({ values, next, tasks, checkpoint }) => ({ values, next, tasks, id: checkpoint.checkpoint_id }));
    assert.deepEqual(content(copied), content(history));
    // as upstream: the node's write has no id (the state's message has the one the reducer gave it)
    const [result] = (history.find((s) => s.next[0] === 'tools')!.tasks as any[])[0].result.messages;
    assert.equal(result.id, undefined);
  });

  it("debug checkpoints name themselves and their parent; a subgraph's task names its state", async () => {
    const thread = await client.threads.create();
    const payloads: any[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, 'inside', { input: say('deploy?'), streamMode: 'debug' })) {
      if (chunk.event === 'debug' && (chunk.data as any).type === 'checkpoint') payloads.push((chunk.data as any).payload);
    }
    assert.equal(payloads.length, 2);
    for (const payload of payloads) {
      assert.equal(payload.checkpoint.checkpoint_id, payload.config.configurable.checkpoint_id);
      assert.deepEqual([payload.checkpoint.thread_id, payload.checkpoint.checkpoint_ns, payload.checkpoint.checkpoint_map], [thread.thread_id, '', null]);
    }
    assert.equal(payloads[0].parent_checkpoint, null);
    assert.equal(payloads[1].parent_checkpoint.checkpoint_id, payloads[0].checkpoint.checkpoint_id);
    const [childTask] = payloads[1].tasks;
    assert.equal(childTask.name, 'child');
    assert.match(childTask.checkpoint.checkpoint_ns, /^child:/);
    assert.equal(childTask.state, undefined);
  });

  it('message dicts carry additional_kwargs and response_metadata, from LangGraph and plain-function graphs alike', async () => {
    for (const graph of ['agent', 'echo']) {
      const values = (await client.runs.wait(null, graph, { input: say('what is 6 * 7?') })) as { messages: Record<string, unknown>[] };
      assert.ok(values.messages.length >= 2, graph);
      for (const message of values.messages) {
        assert.deepEqual(message.additional_kwargs, {}, `${graph} ${message.type}`);
        assert.equal(typeof message.response_metadata, 'object', `${graph} ${message.type}`);
        if (message.type === 'ai') assert.ok(Array.isArray(message.tool_calls) && Array.isArray(message.invalid_tool_calls), graph);
      }
    }
  });

  it('subgraph schemas are keyed state, input, output and config, read from the TypeScript where the subgraph is added', async () => {
    const subgraphs = await client.assistants.getSubgraphs('inside');
    assert.deepEqual(Object.keys(subgraphs), ['child']);
    assert.deepEqual(Object.keys(subgraphs.child).sort(), ['config', 'input', 'output', 'state']);
    const state = (subgraphs.child as any).state;
    // the subgraph's own types (as upstream's static extraction), not a list of its channel names
    assert.equal(state.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.deepEqual(state.properties.messages.items, { $ref: '#/definitions/BaseMessage' });
  });
});
