// A run worker posts each stream event as its JSON text (src/domain/agent/messages/wireJson.ts,
// src/shared/jsonText.ts): the text must be exactly JSON.stringify of the event's data, with
// the text of each unchanged message made once and a message changed in place written as
// it is now. Data JSON cannot write is refused as JSON.stringify refuses it (the worker then
// clones it as before).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { serialiseValues, wireMemoOf } from '../../../../src/domain/agent/messages/messages.ts';
import { valuesJson, wireJson } from '../../../../src/domain/agent/messages/wireJson.ts';
import { JsonText, dataOf, jsonOf } from '../../../../src/shared/jsonText.ts';
import { formatSseEvent } from '../../../../src/runtime/transports/sse.ts';
import { conversation } from '../../../support/conversation.ts';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** Changes a node may make to the conversation's messages in place, one per function. */
function inPlaceChanges(messages: ReturnType<typeof conversation>): (() => void)[] {
  return [
    () => (messages[0].content = 'changed'),
    () => (messages[1] as AIMessage).tool_calls![0].args.nested.deep.push('more'),
    () => ((messages[1].additional_kwargs as Record<string, unknown>).added = { x: 1 }),
    () => ((messages[3].content as { text: string }[])[0].text = 'other blocks'),
    () => ((messages[2] as unknown as Record<string, unknown>).name = 'renamed'),
  ];
}

test('event data is written exactly as JSON.stringify writes it', () => {
  const values: unknown[] = [
    null,
    0,
    -0,
    1.5e300,
    NaN,
    Infinity,
    true,
    'text "with" \\ \u2028 \ud800 lone surrogate',
    [],
    {},
    [undefined, () => 1, Symbol('s'), null, 2],
    { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: [{}], '"key"\n': 1, ['__proto__']: 'own' },
    Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false }),
    Object.assign(Object.create(null), { bare: [1, { deeper: 'x' }] }),
    { when: new Date(0), map: new Map([['k', 'v']]), set: new Set([1]), point: new Point(1, 2), boxed: [new Number(3), new String('s'), new Boolean(false)] },
    { custom: { toJSON: () => ({ replaced: true }) }, nested: [{ toJSON: () => 'text' }] },
    { bytes: new Uint8Array([1, 2]), error: new Error('e') },
    { 1: 'one', b: 'b', 0: 'zero' },
  ];
  for (const value of values) assert.equal(wireJson(value), JSON.stringify(value), `for ${String(JSON.stringify(value))}`);
  assert.equal(wireJson(undefined), undefined);
  assert.equal(
    wireJson(() => 1),
    undefined,
  );
});

test('what JSON.stringify refuses is refused (the worker clones it instead)', () => {
  assert.throws(() => wireJson({ big: 1n }), TypeError);
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = { back: cycle };
  assert.throws(() => wireJson(cycle), TypeError);
});

test("a values event's text holds each message as upstream's dict, the same text cold and warm, and a changed message as it is now", () => {
  const messages = conversation();
  const state = { messages, other: { count: 2, list: [messages[2]] } };
  const expected = () => JSON.stringify(serialiseValues(state));
  assert.equal(wireJson(serialiseValues(state)), expected(), 'cold');
  const warm = serialiseValues(state) as { messages: object[] };
  assert.ok(wireMemoOf(warm.messages[0])?.wireText, "the message's text was kept");
  assert.equal(wireJson(warm), expected(), 'warm: each message text reused');
  const changes = inPlaceChanges(messages);
  for (const [i, change] of changes.entries()) {
    change();
    assert.equal(wireJson(serialiseValues(state)), expected(), `after change ${i}`);
  }
});

test("a message dict changed by its reader before it is written is written as it is, not as its message's memo", () => {
  const [message] = conversation();
  const state = { messages: [message] };
  wireJson(serialiseValues(state)); // the memo's text is made
  const wire = serialiseValues(state) as { messages: Record<string, unknown>[] };
  wire.messages[0].content = 'set on this copy';
  assert.equal(wireJson(wire), JSON.stringify(wire));
  const added = serialiseValues(state) as { messages: Record<string, unknown>[] };
  added.messages[0].extra = 1;
  assert.equal(wireJson(added), JSON.stringify(added));
  const removed = serialiseValues(state) as { messages: Record<string, unknown>[] };
  delete removed.messages[0].name;
  assert.equal(wireJson(removed), JSON.stringify(removed));
});

test("a values event written straight from the graph's state is the text of its serialised values, cold, warm and after changes", () => {
  const messages = conversation();
  const unmemoised = new HumanMessage({ content: 'holds a date', id: 'd1', additional_kwargs: { when: new Date(0) } });
  const state = {
    messages,
    other: { count: 2, list: [messages[2], undefined, null], gone: undefined, ['__proto__']: { own: true } },
    chunk: new AIMessageChunk({ content: 'partial', id: 'c9' }),
    unmemoised,
    failed: new Error('boom'),
    when: new Date(0),
    map: new Map([['k', 'v']]),
    point: new Point(1, 2),
    custom: { toJSON: () => ({ replaced: true }) },
    bare: Object.assign(Object.create(null), { a: [1, { b: messages[0] }] }),
    text: 'q"\u2028',
  };
  const expected = () => wireJson(serialiseValues(state));
  assert.equal(valuesJson(state), expected(), 'cold');
  assert.equal(valuesJson(state), expected(), 'warm');
  assert.equal(valuesJson(state), JSON.stringify(serialiseValues(state)), 'as JSON.stringify writes the serialised values');
  const changes = [...inPlaceChanges(messages), () => (unmemoised.content = 'still no memo')];
  for (const [i, change] of changes.entries()) {
    change();
    assert.equal(valuesJson(state), expected(), `after change ${i}`);
  }
  for (const value of [null, 1, 'text', [], {}, [undefined, () => 1], { f: () => 1, u: undefined }])
    assert.equal(valuesJson(value), wireJson(serialiseValues(value)));
  assert.equal(valuesJson(undefined), undefined);
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = { back: cycle };
  assert.throws(() => valuesJson(cycle), TypeError);
  assert.throws(() => valuesJson({ big: 1n }), TypeError);
});

test('event data that came as text reads as its value, serialises as itself and goes out on SSE as its text', () => {
  const data = { messages: [{ type: 'human', content: 'hi\nthere', id: 'h1' }], n: 1 };
  const text = new JsonText(JSON.stringify(data));
  assert.deepEqual(dataOf(text), data);
  assert.equal(dataOf(text), dataOf(text), 'parsed once');
  assert.equal(jsonOf(text), JSON.stringify(data));
  assert.equal(JSON.stringify({ event: text }), JSON.stringify({ event: data }));
  assert.equal(formatSseEvent({ event: 'values', id: '3', data: text }), formatSseEvent({ event: 'values', id: '3', data }));
  assert.deepEqual(dataOf(data), data);
  assert.equal(jsonOf(undefined), 'null');
});
