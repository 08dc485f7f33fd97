// The bounds on what a span holds of a conversation: a node's input is its thread's whole
// state and a model call's input its whole history, so both are cut to a size, and both stay
// JSON (a backend parses gen_ai.input.messages).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { boundedJson } from '../../../../src/domain/agent/tracing/boundedJson.ts';
import { genAiMessage, MAX_MESSAGES_CHARS, messagesJson } from '../../../../src/domain/agent/tracing/genAiMessages.ts';

test('messages are written as role and parts: text, tool_call with its arguments, tool_call_response', () => {
  const call = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'calculator', args: { input: '6 * 7' }, type: 'tool_call' }] });
  assert.deepEqual([new HumanMessage('6 * 7?'), call, new ToolMessage({ content: '42', tool_call_id: 'c1' })].map(genAiMessage), [
    { role: 'user', parts: [{ type: 'text', content: '6 * 7?' }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'calculator', arguments: { input: '6 * 7' } }] },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: '42' }] },
  ]);
});

test('a long history keeps its newest whole messages that fit, and stays JSON', () => {
  const history = Array.from({ length: 200 }, (_, i) => genAiMessage(new HumanMessage(`message ${i} ${'x'.repeat(300)}`)));
  const json = messagesJson(history);
  assert.ok(json.length <= MAX_MESSAGES_CHARS);
  const kept = JSON.parse(json) as Array<{ parts: Array<{ content: string }> }>;
  assert.ok(kept.length > 10 && kept.length < 200);
  assert.match(kept.at(-1)!.parts[0].content, /^message 199 /);
});

test("a node's state is bounded: a long list keeps its newest items, messages as role and parts", () => {
  const state = { messages: Array.from({ length: 1000 }, (_, i) => new HumanMessage(`m${i}`)), big: 'y'.repeat(100_000) };
  const json = boundedJson(state);
  assert.ok(json.length < 16_000);
  const parsed = JSON.parse(json) as { messages: unknown[]; big: string };
  assert.equal(parsed.messages[0], '… 980 earlier');
  assert.deepEqual(parsed.messages.at(-1), { role: 'user', parts: [{ type: 'text', content: 'm999' }] });
  assert.ok(parsed.big.length <= 2001);
});
