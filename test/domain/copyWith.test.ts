// copyWith: a spread's meaning without a hidden class per object (src/domain/copyWith.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { copyWith } from '../../src/domain/copyWith.ts';
import { serialiseValues, toMessageDict } from '../../src/domain/agent/messages/messages.ts';

v8.setFlagsFromString('--allow-natives-syntax');
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
v8.setFlagsFromString('--no-allow-natives-syntax');

/** Objects of many shapes through a function, so its sites are megamorphic as in a busy server. */
function manyShapesThrough(make: (source: Record<string, unknown>) => unknown): void {
  for (let i = 0; i < 12; i += 1) make({ [`k${i}`]: i, [`j${i % 3}`]: `v${i}` });
}

test('copyWith copies as a spread does: own keys in order, changes on top, an own __proto__ kept as a property', () => {
  const base = { a: 1, b: { deep: true }, c: undefined };
  const copy = copyWith(base, { b: 2, d: 'x' });
  assert.deepEqual(Object.keys(copy), ['a', 'b', 'c', 'd']);
  assert.deepEqual(copy, { a: 1, b: 2, c: undefined, d: 'x' });
  assert.notEqual(copy, base);
  assert.deepEqual(base.b, { deep: true }, 'the base is left as it was');
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as object;
  const fromParsed = copyWith(parsed, {});
  assert.equal(Object.getPrototypeOf(fromParsed), Object.prototype, 'the prototype is not replaced');
  assert.ok(Object.prototype.hasOwnProperty.call(fromParsed, '__proto__'));
  assert.equal((fromParsed as { polluted?: boolean }).polluted, undefined);
});

test('copies made at a busy site share one hidden class (a leading spread there gives each its own)', () => {
  const viaSpread = (source: Record<string, unknown>) => ({ ...source, type: 'human' });
  const viaCopy = (source: Record<string, unknown>) => copyWith(source, { type: 'human' });
  manyShapesThrough(viaSpread);
  manyShapesThrough(viaCopy);
  const source = () => ({ content: 'hi', additional_kwargs: {}, response_metadata: {}, id: 'x' });
  assert.ok(sameShape(viaCopy(source()), viaCopy(source())));
});

test("messages made from LangChain messages and from dicts share their type's hidden class", () => {
  // LangChain messages of many kinds and fields, as a busy server's runs produce
  for (let i = 0; i < 6; i += 1) {
    serialiseValues(new HumanMessage({ content: `h${i}`, id: `h${i}`, name: i % 2 ? 'n' : undefined, additional_kwargs: { [`k${i}`]: i } }));
    serialiseValues(new AIMessage({ content: `a${i}`, id: `a${i}`, tool_calls: [{ id: `t${i}`, name: 'f', args: { i } }] }));
    serialiseValues(new SystemMessage({ content: `s${i}`, id: `s${i}`, response_metadata: { [`r${i}`]: i } }));
    serialiseValues(new ToolMessage({ content: `t${i}`, id: `tm${i}`, tool_call_id: `t${i}` }));
  }
  manyShapesThrough((source) => toMessageDict({ ...source, role: 'user', content: 'c' }));
  const lc = [new HumanMessage({ content: 'one', id: 'a' }), new HumanMessage({ content: 'two', id: 'b' })];
  const [first, second] = lc.map((m) => serialiseValues(m) as object);
  assert.ok(sameShape(first, second), 'two LangChain human messages on the wire');
  const [x, y] = ['one', 'two'].map((content) => toMessageDict({ role: 'user', content, id: content }));
  assert.ok(sameShape(x, y), 'two {role, content} inputs');
});
