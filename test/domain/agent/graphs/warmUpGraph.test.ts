// agentplane's warm-up graph (issue 89) streams as a project's agent over a hosted model does: its
// model tells each token to the run's callbacks, so LangGraph's `messages` mode streams the answer
// token by token from there, the path a first run's first token takes (a model that only yielded
// its chunks had its answer streamed once, whole, at its end: that path was left cold).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemorySaver, type CompiledStateGraph } from '@langchain/langgraph';
import type { AIMessageChunk } from '@langchain/core/messages';
import { WARM_UP_INPUT, warmUpGraph } from '../../../../src/domain/agent/graphs/warmUpGraph.ts';

test('its model streams the answer token by token into the messages mode, after the tool call', async () => {
  const { graph } = warmUpGraph(new MemorySaver()) as unknown as { graph: CompiledStateGraph<never, never> };
  const stream = await graph.stream(WARM_UP_INPUT as never, { streamMode: 'messages', configurable: { thread_id: 'warm-up' } });
  const pieces: string[] = [];
  for await (const [message, meta] of stream as AsyncIterable<[AIMessageChunk, { langgraph_node: string }]>)
    if (meta.langgraph_node === 'agent' && typeof message.content === 'string' && message.content) pieces.push(message.content);
  assert.deepEqual(pieces, ['The ', 'answer ', 'is ', '42.']);
});
