// The mapping rules between A2A messages and graph input/state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replyText, taskState, toA2AHistory, toRunInput as toRunOutcome } from '../../../src/domain/a2a/convert.ts';
import { rpcError } from '../../../src/handlers/a2a/failures.ts';

const msg = (parts: any[], role: 'user' | 'agent' = 'user') => ({ kind: 'message' as const, messageId: 'm', role, parts: parts as any });
/** The run input, or the JSON-RPC error the A2A endpoint answers for the failure. */
const toRunInput = (message: ReturnType<typeof msg>, hasMessages: boolean) => {
  const outcome = toRunOutcome(message, hasMessages);
  return outcome.ok ? { input: outcome.value } : { error: rpcError(outcome.failure) };
};

test("a message's text parts become one input message with the client's messageId, after merged data parts", () => {
  const out = toRunInput(
    msg([
      { kind: 'data', data: { topic: 't', messages: [{ role: 'system', content: 's' }] } },
      { kind: 'text', text: 'a' },
      { kind: 'text', text: 'b' },
    ]),
    true,
  );
  assert.deepEqual(out, {
    input: {
      topic: 't',
      messages: [
        { role: 'system', content: 's' },
        {
          role: 'human',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
          id: 'm',
        },
      ],
    },
  });
  assert.deepEqual(toRunInput(msg([{ kind: 'text', text: 'x' }], 'agent'), true), { input: { messages: [{ role: 'assistant', content: 'x', id: 'm' }] } });
  assert.equal((toRunInput(msg([{ kind: 'text', text: 'x' }]), false) as any).error.code, -32602);
  assert.deepEqual(toRunInput(msg([{ kind: 'data', data: { n: 1 } }]), false), { input: { n: 1 } });
});

test('the reply is the last AI text of the latest turn only', () => {
  const history = [
    { type: 'human', content: 'q1' },
    { type: 'ai', content: [{ type: 'text', text: 'a1' }] },
    { type: 'human', content: 'q2' },
    { type: 'ai', content: '', tool_calls: [{}] },
    { type: 'tool', content: 'tool out' },
    { type: 'ai', content: 'a2' },
  ];
  assert.equal(replyText(history), 'a2');
  assert.equal(replyText(history.slice(0, 3)), null);
  assert.equal(replyText(undefined), null);
});

test('history maps human to user and skips messages without text', () => {
  const h = toA2AHistory(
    [
      { type: 'human', content: 'hi', id: 'h1' },
      { type: 'ai', content: '' },
      { type: 'ai', content: 'yo' },
    ],
    { contextId: 'c', taskId: 't' },
  );
  assert.deepEqual(
    h.map((m) => [m.role, m.messageId, m.parts[0]]),
    [
      ['user', 'h1', { kind: 'text', text: 'hi' }],
      ['agent', 'c-2', { kind: 'text', text: 'yo' }],
    ],
  );
});

test('run status maps to task state', () => {
  const s = (status: any, canceled = false, awaitingInput = false) => taskState(status, { canceled, awaitingInput });
  assert.deepEqual(
    [s('pending'), s('running'), s('success'), s('success', false, true), s('interrupted', true), s('interrupted'), s('error'), s('timeout')],
    ['submitted', 'working', 'completed', 'input-required', 'canceled', 'input-required', 'failed', 'failed'],
  );
});
