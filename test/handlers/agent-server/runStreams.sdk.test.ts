// `client.runs.stream` once per stream mode the SDK offers, against both shipped graphs
// (`echo`, a plain function; `agent`, LangGraph with a token-streaming model and tools):
// the event names and data shapes the upstream agent server sends.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, type StreamMode } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

interface Chunk {
  event: string;
  data: any;
}

let server: InProcessApp;
let client: Client;

before(async () => {
  server = await areaApp('agent-server', { project: testProject, dataDir: null });
  client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
});
after(() => server.close());

async function streamed(graph: string, streamMode: StreamMode | StreamMode[], text = 'what is 6 * 7?', extra: Record<string, unknown> = {}): Promise<Chunk[]> {
  const thread = await client.threads.create();
  const chunks: Chunk[] = [];
  for await (const chunk of client.runs.stream(thread.thread_id, graph, { input: { messages: [{ role: 'user', content: text }] }, streamMode, ...extra })) {
    chunks.push(chunk as Chunk);
  }
  assert.equal(chunks[0].event, 'metadata');
  assert.equal(typeof chunks[0].data.run_id, 'string');
  // as on the upstream JS server, the stream just ends: an `end` event would reach user code
  assert.ok(!chunks.some((c) => c.event === 'end'), names(chunks).join(', '));
  return chunks.slice(1);
}

const names = (chunks: Chunk[]) => chunks.map((c) => c.event);
const contents = (messages: { content: unknown }[]) => messages.map((m) => m.content);

describe('stream modes of the agent (LangGraph) graph', () => {
  it('values: the whole state after each step', async () => {
    const chunks = await streamed('agent', 'values');
    assert.deepEqual(names(chunks), ['values', 'values', 'values', 'values']);
    assert.deepEqual(contents(chunks.at(-1)!.data.messages), ['what is 6 * 7?', '', '42', 'The answer is 42.']);
  });

  it('updates: {node: update} per step', async () => {
    const chunks = await streamed('agent', 'updates');
    assert.deepEqual(
      chunks.map((c) => Object.keys(c.data)),
      [['agent'], ['tools'], ['agent']],
    );
    assert.equal(chunks[1].data.tools.messages[0].type, 'tool');
  });

  it('messages: metadata and partials of streamed messages; complete with the new messages of each step', async () => {
    const chunks = await streamed('agent', 'messages');
    const answer = chunks.filter((c) => c.event !== 'messages/metadata' && c.data[0].content.startsWith('The'));
    assert.deepEqual(
      answer.map((c) => [c.event, c.data[0].content]),
      [
        ['messages/partial', 'The '],
        ['messages/partial', 'The answer '],
        ['messages/partial', 'The answer is '],
        ['messages/partial', 'The answer is 42.'],
        ['messages/complete', 'The answer is 42.'],
      ],
    );
    const id = answer[0].data[0].id;
    assert.ok(answer.every((c) => c.data[0].id === id && c.data[0].type === 'ai'));
    const metadata = chunks.filter((c) => c.event === 'messages/metadata');
    assert.equal(metadata.length, 2, 'the two streamed model answers (tool call, answer)');
    assert.equal(metadata[1].data[id].metadata.langgraph_node, 'agent');
    // as upstream: every message new in the state is completed once, the input's included; whole
    // messages (the tool result) only that way
    const complete = chunks.filter((c) => c.event === 'messages/complete');
    assert.deepEqual(
      complete.map((c) => c.data.map((m: { type: string }) => m.type)),
      [['human'], ['ai'], ['tool'], ['ai']],
    );
    assert.equal(complete[2].data[0].content, '42');
    assert.ok(!chunks.some((c) => c.event === 'messages/partial' && c.data[0].type === 'tool'));
    assert.ok(chunks.every((c) => ['messages/metadata', 'messages/partial', 'messages/complete'].includes(c.event)));
  });

  it('messages with values: each messages/complete right after the values that holds its messages', async () => {
    const chunks = await streamed('agent', ['messages', 'values']);
    const steps = names(chunks).filter((e) => e === 'values' || e === 'messages/complete');
    assert.deepEqual(steps, ['values', 'messages/complete', 'values', 'messages/complete', 'values', 'messages/complete', 'values', 'messages/complete']);
    const last = chunks.at(-1)!;
    assert.equal(last.event, 'messages/complete');
    assert.equal(last.data[0].content, 'The answer is 42.');
  });

  it('messages-tuple: [chunk, metadata] per token', async () => {
    const chunks = await streamed('agent', 'messages-tuple');
    assert.ok(chunks.every((c) => c.event === 'messages' && Array.isArray(c.data) && c.data.length === 2));
    // a chunk is typed as its message, as upstream's JS server writes it (not `AIMessageChunk`)
    const tokens = chunks.filter((c) => c.data[0].type === 'ai' && c.data[0].content !== '');
    assert.deepEqual(contents(tokens.map((c) => c.data[0])), ['The ', 'answer ', 'is ', '42.']);
    assert.equal(tokens[0].data[1].langgraph_node, 'agent');
  });

  it('events: LangChain stream events v2', async () => {
    const chunks = await streamed('agent', 'events');
    assert.ok(chunks.every((c) => c.event === 'events'));
    const kinds = chunks.map((c) => c.data.event);
    for (const kind of ['on_chain_start', 'on_chat_model_start', 'on_chat_model_stream', 'on_chat_model_end', 'on_tool_start', 'on_tool_end', 'on_chain_end']) {
      assert.ok(kinds.includes(kind), `${kind} in ${kinds.join(', ')}`);
    }
    const first = chunks[0].data;
    assert.deepEqual([first.event, first.name], ['on_chain_start', 'LangGraph']);
    for (const key of ['run_id', 'tags', 'metadata', 'data']) assert.ok(key in first, key);
    const token = chunks.find((c) => c.data.event === 'on_chat_model_stream' && c.data.data.chunk.content === 'answer ');
    assert.ok(token, 'a token of the answer');
    assert.equal(token.data.data.chunk.type, 'ai');
    // the prompt's messages keep their own types too
    const start = chunks.find((c) => c.data.event === 'on_chat_model_start')!;
    assert.ok(!JSON.stringify(start.data.data).includes('MessageChunk'), JSON.stringify(start.data.data));
    assert.deepEqual(chunks.find((c) => c.data.event === 'on_tool_end')!.data.data.output.content, '42');
  });

  it("events with other modes: each step's chunks fall among the events where upstream's fall", async () => {
    // upstream streams the debug mode underneath every run; its chunks pass through the graph's
    // stream unsent and so decide where the other modes' chunks land among the events
    const chunks = await streamed('agent', ['values', 'updates', 'events']);
    const label = (c: Chunk) => (c.event !== 'events' ? c.event : c.data.event === 'on_chat_model_start' ? c.data.event : `${c.data.event}:${c.data.name}`);
    const order = chunks.map(label).filter((l) => ['values', 'updates', 'on_chain_end:agent', 'on_chain_start:tools', 'on_chat_model_start'].includes(l));
    assert.deepEqual(order.slice(0, 5), ['values', 'on_chat_model_start', 'on_chain_end:agent', 'updates', 'on_chain_start:tools'], order.join(', '));
  });

  it('tools: on_tool_start and on_tool_end', async () => {
    const chunks = await streamed('agent', 'tools');
    assert.deepEqual(
      chunks.map((c) => [c.event, c.data.event, c.data.name, c.data.toolCallId]),
      [
        ['tools', 'on_tool_start', 'calculator', 'call_1'],
        ['tools', 'on_tool_end', 'calculator', 'call_1'],
      ],
    );
    assert.equal(chunks[1].data.output.content, '42');
  });

  it('debug: checkpoint, task and task_result chunks', async () => {
    const chunks = await streamed('agent', 'debug');
    assert.ok(chunks.every((c) => c.event === 'debug'));
    assert.deepEqual([...new Set(chunks.map((c) => c.data.type))].sort(), ['checkpoint', 'task', 'task_result']);
    const checkpoint = chunks.find((c) => c.data.type === 'checkpoint')!.data;
    assert.equal(typeof checkpoint.step, 'number');
    assert.equal(typeof checkpoint.payload.config.configurable.checkpoint_id, 'string');
    assert.equal(checkpoint.payload.config.callbacks, undefined, 'no internals on the wire');
  });

  it('custom: what the graph writes', async () => {
    const chunks = await streamed('agent', 'custom');
    assert.deepEqual(
      chunks.map((c) => [c.event, c.data]),
      [
        ['custom', { node: 'agent', turn: 1 }],
        ['custom', { node: 'agent', turn: 3 }],
      ],
    );
  });

  it("tasks: each task starts with its input and ends with the node's output as its result", async () => {
    const chunks = await streamed('agent', 'tasks');
    assert.deepEqual(
      chunks.map((c) => [c.data.name, 'input' in c.data ? 'start' : 'result']),
      [
        ['agent', 'start'],
        ['agent', 'result'],
        ['tools', 'start'],
        ['tools', 'result'],
        ['agent', 'start'],
        ['agent', 'result'],
      ],
    );
    // as upstream: the object the node returned, not [channel, value] pairs
    assert.deepEqual(Object.keys(chunks[5].data.result), ['messages']);
    assert.equal(chunks[5].data.result.messages[0].content, 'The answer is 42.');
    assert.deepEqual(chunks[0].data.triggers, ['branch:to:agent']);
  });

  it('checkpoints: values, next, config, parent_config, metadata and tasks of each checkpoint', async () => {
    const chunks = await streamed('agent', 'checkpoints');
    assert.deepEqual(
      chunks.map((c) => c.data.next),
      [['__start__'], ['agent'], ['tools'], ['agent'], []],
    );
    const last = chunks.at(-1)!.data;
    assert.equal(last.metadata.step, 3);
    assert.equal(last.parent_config.configurable.checkpoint_id, chunks.at(-2)!.data.config.configurable.checkpoint_id);
    assert.ok(Array.isArray(last.tasks));
  });

  it('several modes at once, each event named after its mode', async () => {
    const chunks = await streamed('agent', ['values', 'updates', 'custom']);
    assert.deepEqual([...new Set(names(chunks))].sort(), ['custom', 'updates', 'values']);
  });
});

describe('stream_subgraphs', () => {
  it('names the events of a subgraph `<mode>|<namespace>`', async () => {
    const chunks = await streamed('nested', ['updates', 'messages-tuple'], 'what is 6 * 7?', { streamSubgraphs: true });
    const inner = chunks.filter((c) => c.event.includes('|'));
    assert.ok(inner.length > 0);
    assert.ok(
      inner.every((c) => /^(updates|messages)\|inner:[0-9a-f-]+(\|[a-z]+:[0-9a-f-]+)*$/.test(c.event)),
      inner.map((c) => c.event).join(', '),
    );
    assert.deepEqual(Object.keys(inner.find((c) => c.event.startsWith('updates|'))!.data), ['agent']);
    assert.deepEqual(
      chunks.filter((c) => c.event === 'updates').map((c) => Object.keys(c.data)),
      [['inner']],
    );
    // the messages mode with subgraphs streamed: partials, never namespaced, and (as on the
    // upstream JS server) no messages/complete
    const messages = await streamed('nested', 'messages', 'what is 6 * 7?', { streamSubgraphs: true });
    const answer = messages.filter((c) => c.event.startsWith('messages/') && c.event !== 'messages/metadata' && c.data[0].content.startsWith('The'));
    assert.deepEqual(
      answer.map((c) => c.event),
      ['messages/partial', 'messages/partial', 'messages/partial', 'messages/partial'],
    );
    assert.ok(!messages.some((c) => c.event.startsWith('messages/complete')));
    // without the flag, only the parent graph's events
    assert.ok((await streamed('nested', 'updates')).every((c) => c.event === 'updates'));
  });

  it("sends LangGraph's checkpoint envelope before each values event when the run did not ask for checkpoints", async () => {
    const envelope = (data: Record<string, unknown>) => Object.keys(data).every((k) => ['id', 'parent_id', 'step', 'source'].includes(k));
    // the old messages mode streams values underneath, as upstream's does
    for (const mode of ['values', 'messages'] as const) {
      const chunks = await streamed('nested', mode, 'what is 6 * 7?', { streamSubgraphs: true });
      const checkpoints = chunks.filter((c) => c.event.split('|')[0] === 'checkpoints');
      assert.ok(checkpoints.length >= 2, `${mode}: ${names(chunks).join(', ')}`);
      assert.ok(
        checkpoints.some((c) => c.event.startsWith('checkpoints|inner:')),
        names(checkpoints).join(', '),
      );
      for (const c of checkpoints) {
        assert.ok(
          envelope(c.data) && typeof c.data.id === 'string' && typeof c.data.step === 'number' && typeof c.data.source === 'string',
          JSON.stringify(c.data),
        );
      }
      if (mode === 'values') {
        // each right before a values event of its namespace
        for (const c of checkpoints) assert.equal(chunks[chunks.indexOf(c) + 1].event, c.event.replace('checkpoints', 'values'), names(chunks).join(', '));
      }
    }
    // asked for, checkpoints are the full ones (no envelope); without subgraphs, no envelope
    const asked = await streamed('nested', ['values', 'checkpoints'], 'what is 6 * 7?', { streamSubgraphs: true });
    const full = asked.filter((c) => c.event.startsWith('checkpoints'));
    assert.ok(full.length > 0 && full.every((c) => 'values' in c.data && !envelope(c.data)), names(asked).join(', '));
    assert.deepEqual([...new Set(names(await streamed('nested', 'values')))], ['values']);
    // with events as well (the stream-events path): the same envelopes
    const withEvents = await streamed('nested', ['values', 'events'], 'what is 6 * 7?', { streamSubgraphs: true });
    assert.ok(
      withEvents.some((c) => c.event.startsWith('checkpoints|inner:')),
      names(withEvents).join(', '),
    );
  });
});

describe('stream modes of the echo (plain function) graph', () => {
  it('values, updates, custom', async () => {
    assert.deepEqual(names(await streamed('echo', 'values')), ['values', 'values']);
    const [update] = await streamed('echo', 'updates');
    assert.deepEqual(Object.keys(update.data), ['echo']);
    assert.deepEqual(
      (await streamed('echo', 'custom')).map((c) => [c.event, c.data]),
      [['custom', { echoing: 1 }]],
    );
  });

  it('messages and messages-tuple carry the whole reply', async () => {
    const messages = await streamed('echo', 'messages', 'hello');
    // the input's message with the first state, the reply with the last
    assert.deepEqual(names(messages), ['messages/complete', 'messages/complete']);
    assert.deepEqual(
      messages.map((c) => [c.data[0].type, c.data[0].content]),
      [
        ['human', 'hello'],
        ['ai', 'hello'],
      ],
    );
    const tuple = await streamed('echo', 'messages-tuple', 'hello');
    assert.deepEqual(
      tuple.map((c) => [c.event, c.data[0].type, c.data[0].content, c.data[1].langgraph_node]),
      [['messages', 'ai', 'hello', 'echo']],
    );
  });

  it('events: the graph starts and ends', async () => {
    const chunks = await streamed('echo', 'events', 'hello');
    assert.deepEqual(
      chunks.map((c) => [c.event, c.data.event, c.data.name]),
      [
        ['events', 'on_chain_start', 'echo'],
        ['events', 'on_chain_end', 'echo'],
      ],
    );
    assert.equal(chunks[1].data.data.output.messages[0].content, 'hello');
  });

  it('tasks, checkpoints and debug: one task; the input checkpoint, then the result one', async () => {
    const tasks = await streamed('echo', 'tasks', 'hello');
    assert.deepEqual(
      tasks.map((c) => c.data.name),
      ['echo', 'echo'],
    );
    assert.deepEqual(contents(tasks[1].data.result.messages), ['hello']);
    const [input, checkpoint] = await streamed('echo', 'checkpoints', 'hello');
    assert.equal(checkpoint.event, 'checkpoints');
    assert.deepEqual(contents(input.data.values.messages), ['hello']);
    assert.equal(input.data.metadata.source, 'input');
    assert.deepEqual(contents(checkpoint.data.values.messages), ['hello', 'hello']);
    assert.equal(checkpoint.data.metadata.source, 'loop');
    // the result's parent is the input checkpoint, which is what "regenerate" forks from
    assert.equal(checkpoint.data.parent_config.configurable.checkpoint_id, input.data.config.configurable.checkpoint_id);
    assert.deepEqual(checkpoint.data.next, []);
    assert.equal(typeof checkpoint.data.config.configurable.checkpoint_id, 'string');
    const debug = await streamed('echo', 'debug', 'hello');
    assert.deepEqual(
      debug.map((c) => c.data.type),
      ['checkpoint', 'task', 'task_result', 'checkpoint'],
    );
    // a debug checkpoint names itself and its parent, as upstream's
    const [first, , , last] = debug.map((c) => c.data.payload);
    assert.equal(last.parent_checkpoint.checkpoint_id, first.checkpoint.checkpoint_id);
    // the first has no parent: no parent_config at all, as upstream's JSON leaves out its undefined (issue 90, point 3)
    assert.equal(first.parent_checkpoint, null);
    assert.ok(!('parent_config' in first), JSON.stringify(Object.keys(first)));
    assert.ok(!('parent_config' in input.data));
    assert.deepEqual(Object.keys(last.checkpoint).sort(), ['checkpoint_id', 'checkpoint_map', 'checkpoint_ns', 'thread_id']);
  });

  it('tools: a plain function calls no LangChain tools, so nothing', async () => {
    assert.deepEqual(await streamed('echo', 'tools', 'hello'), []);
  });
});
