// jsonLength: a node span's input.size / output.size without serialising the thread's whole
// state again on every node (src/domain/agent/tracing/jsonLength.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { jsonLength } from '../../../../src/domain/agent/tracing/jsonLength.ts';

test('jsonLength answers what JSON.stringify(value).length answers', () => {
  const date = new Date(0);
  const values: unknown[] = [
    null,
    0,
    -1.5e-7,
    'quote " and \\ and \u2028 and é',
    true,
    [],
    {},
    [undefined, () => 1, Symbol('s'), null, 'x'],
    { a: undefined, b: () => 1, c: 1, 'key "quoted"': [1, { d: null }] },
    { nested: { deeper: { deepest: { beyond: { walk: [1, 2, { x: 'y' }] } } } } },
    { when: date, map: new Map([[1, 2]]), set: new Set([1]) },
    { messages: [new HumanMessage({ content: 'hello', id: 'h1' }), new AIMessage({ content: [{ type: 'text', text: 'hi' }], id: 'a1' })] },
    [new HumanMessage('a'), { inner: new AIMessage('b') }],
  ];
  for (const value of values) assert.equal(jsonLength(value), JSON.stringify(value).length, JSON.stringify(value));
  assert.equal(jsonLength(undefined), 'undefined'.length);
});

test('jsonLength answers -1 for what JSON.stringify cannot write', () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  assert.equal(jsonLength(cycle), -1);
  assert.equal(jsonLength({ big: 1n }), -1);
});

test('a message is serialised once however many states it is measured in', () => {
  const message = new HumanMessage({ content: 'counted', id: 'm1' });
  let serialised = 0;
  const toJSON = message.toJSON.bind(message);
  message.toJSON = () => {
    serialised += 1;
    return toJSON();
  };
  const expected = JSON.stringify({ messages: [message] }).length;
  serialised = 0;
  for (let step = 0; step < 5; step += 1) assert.equal(jsonLength({ messages: [message] }), expected);
  assert.equal(serialised, 1);
});
