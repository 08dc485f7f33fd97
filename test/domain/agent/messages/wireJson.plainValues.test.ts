// plainValuesJson (src/domain/agent/messages/wireJson.ts): a plain runner's interim `values`
// event goes out as JSON.stringify of the state itself, without the serialised copy (issue 87).
// That text must be exactly the serialised copy's text whenever one is given, for any value:
// plain data, and plain data holding what serialiseValues turns (LangChain messages, Errors,
// Dates, class instances, an own toJSON or `_getType`, `__proto__` keys, BigInts, cycles).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { serialiseValues } from '../../../../src/domain/agent/messages/messages.ts';
import { plainValuesJson } from '../../../../src/domain/agent/messages/wireJson.ts';
import { RunStream } from '../../../../src/domain/agent/graphs/runStream.ts';
import { JsonText } from '../../../../src/shared/jsonText.ts';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const plainLeaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
);
const turned = fc.oneof(
  fc.constant(0).map(() => new HumanMessage({ content: 'hi', id: 'h1' })),
  fc.constant(0).map(() => new AIMessage({ content: 'hello', id: 'a1' })),
  fc.constant(0).map(() => new Error('boom')),
  fc.constant(0).map(() => new Date(0)),
  fc.constant(0).map(() => new Point(1, 2)),
  fc.constant(0).map(() => new Map([['a', 1]])),
  fc.constant(0).map(() => ({ toJSON: () => ({ other: true }), kept: 1 })),
  fc.constant(0).map(() => ({ _getType: () => 'human', content: 'dict with a type', id: 'x' })),
  fc.constant(0).map(() => Object.assign([1, 2], { toJSON: () => 'array' })),
  fc.constant(0).map(() => Object.create(null, { a: { value: 1, enumerable: true } }) as object),
);
const tree = (leaf: fc.Arbitrary<unknown>) =>
  fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object'), tie('protoKey')),
    array: fc.array(tie('tree'), { maxLength: 4 }),
    object: fc.dictionary(fc.string({ maxLength: 6 }), tie('tree'), { maxKeys: 5 }),
    protoKey: tie('tree').map((value) => Object.assign(JSON.parse('{"__proto__": 1}') as object, { a: value })),
  })).tree;

test('plain data: the text is the serialised copy’s, and is given', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 8 }), tree(plainLeaf), { maxKeys: 8 }), (value) => {
      const text = plainValuesJson(value);
      assert.notEqual(text, undefined);
      assert.equal(text, JSON.stringify(serialiseValues(value)));
    }),
    { numRuns: 500 },
  );
});

test('any data: a text given is the serialised copy’s; what serialiseValues turns is left to it', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 8 }), tree(fc.oneof(plainLeaf, turned)), { maxKeys: 8 }), (value) => {
      const text = plainValuesJson(value);
      if (text !== undefined) assert.equal(text, JSON.stringify(serialiseValues(value)));
    }),
    { numRuns: 500 },
  );
  for (const value of [
    { messages: [new HumanMessage({ content: 'hi', id: 'h1' })] },
    { nested: { error: new Error('boom') } },
    { when: new Date(0) },
    { point: new Point(1, 2) },
    { own: { toJSON: () => 'x' } },
    { typed: { _getType: () => 'ai', content: 'c' } },
    { big: 1n },
    { list: Object.assign([1], { toJSON: () => 'array' }) },
  ])
    assert.equal(plainValuesJson(value), undefined, JSON.stringify(Object.keys(value)));
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  assert.equal(plainValuesJson(cycle), undefined);
});

test("a run stream's interim values go out as their text; its last values as the copy the end reuses", () => {
  const published: [string, unknown][] = [];
  const stream = new RunStream(new Set(['values']), (event, data) => published.push([event, data]));
  const state = { messages: [{ type: 'human', content: 'hi', id: 'h1' }] };
  stream.chunk([], 'values', state, true);
  const [[, first]] = published;
  assert.ok(first instanceof JsonText);
  assert.equal(first.text, JSON.stringify(state));
  // not the end's values: the end serialises afresh
  assert.notEqual(stream.wireValues(state), first);
  // an interim state holding a LangChain message goes out as the text of its wire form
  stream.chunk([], 'values', { messages: [new HumanMessage({ content: 'hi', id: 'h1' })] }, true);
  const second = published[1][1];
  assert.ok(second instanceof JsonText);
  assert.deepEqual(second.value, { messages: [{ type: 'human', content: 'hi', id: 'h1', additional_kwargs: {}, response_metadata: {} }] });
  const end = { messages: [...state.messages, { type: 'ai', content: 'hi', id: 'a1' }] };
  stream.chunk([], 'values', end);
  assert.equal(stream.wireValues(end), published[2][1]);
  assert.ok(!(published[2][1] instanceof JsonText));
});
