// A change of the state in one line (ui/src/stateDiff.ts): a message that calls tools says
// which, with their arguments (issue 89: it read `ai:` alone).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brief, stateDiff } from '../../ui/src/stateDiff.ts';

test('an AI message that only calls tools shows each call by name and arguments', () => {
  const message = { type: 'ai', content: '', tool_calls: [{ name: 'calculator', args: { input: '6 * 7' }, id: 'call-1' }] };
  assert.equal(brief(message), 'ai: calls calculator({"input":"6 * 7"})');
});

test('text and calls together; several calls; plain messages as before', () => {
  const both = {
    type: 'ai',
    content: 'Let me count.',
    tool_calls: [
      { name: 'word_count', args: { input: 'a b' } },
      { name: 'calculator', args: {} },
    ],
  };
  assert.equal(brief(both), 'ai: Let me count. calls word_count({"input":"a b"}), calculator({})');
  assert.equal(brief({ type: 'human', content: 'hello' }), 'human: hello');
  assert.equal(brief({ type: 'tool', content: '42', tool_call_id: 'call-1' }), 'tool: 42');
});

test('the diff lists a tool-calling message added', () => {
  const call = { type: 'ai', content: '', tool_calls: [{ name: 'calculator', args: { input: '1 + 1' } }] };
  const changes = stateDiff({ messages: [] }, { messages: [call] });
  assert.deepEqual(changes, [{ key: 'messages', kind: 'added', after: call }]);
  assert.equal(brief(changes[0].after), 'ai: calls calculator({"input":"1 + 1"})');
});
