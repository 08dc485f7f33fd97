// What the embedded store keeps: a frozen deep copy of each record (src/domain/freeze.ts),
// equal to what was written, and as small as a record built key by key. Frozen in place, a
// record made by spread (as the domain makes its records) cost ~280 bytes more: V8 gave each
// one a hidden class of its own. Empty objects and arrays are one shared frozen copy each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { frozenCopy, frozenCopyAlong, frozenFromJson, jsonTextOf, madeFromJson } from '../../src/domain/freeze.ts';

test('a frozen copy holds the same data, frozen all through, and shares what was frozen already', () => {
  const shared = Object.freeze({ a: 1 });
  const given = JSON.parse('{"x":[1,{"y":2}],"__proto__":{"polluted":true},"n":null}') as Record<string, unknown>;
  given.shared = shared;
  const copy = frozenCopy(given);
  assert.deepEqual(copy, given);
  assert.notEqual(copy, given, 'the writer keeps its own object');
  assert.ok(Object.isFrozen(copy) && Object.isFrozen(copy.x) && Object.isFrozen((copy.x as unknown[])[1]));
  assert.equal(copy.shared, shared);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype, 'a key named __proto__ stays data');
  assert.deepEqual(Object.keys(copy), ['x', '__proto__', 'n', 'shared'], 'keys in their order');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const empties = frozenCopy({ a: {}, b: [], c: { d: {} } });
  assert.deepEqual(empties, { a: {}, b: [], c: { d: {} } });
  assert.equal(empties.a, empties.c.d, 'every empty object is one shared frozen object');
  assert.equal(frozenCopy([]), empties.b, 'and every empty array one shared frozen array');
  assert.ok(Object.isFrozen(empties.a) && Object.isFrozen(empties.b) && Array.isArray(empties.b));
  assert.equal(Object.getPrototypeOf(empties.a), Object.prototype);
  const bare = frozenCopy(Object.create(null) as object);
  assert.equal(Object.getPrototypeOf(bare), null, 'an empty object without a prototype keeps having none');
  assert.ok(Object.isFrozen(bare));
  class Kept {
    constructor(readonly v: number) {}
  }
  const instance = new Kept(1);
  assert.equal(frozenCopy(instance), instance, 'a class instance is frozen in place');
  assert.ok(Object.isFrozen(instance));
});

test("the store's records made by spread cost no more memory than records built key by key", async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const store = await openJournalStore({ dataDir: null });
  try {
    const threads = store.collection<Record<string, unknown>>('frozen_records');
    const base = { owner: 'tenant', status: 'idle', config: {}, interrupts: {} };
    const count = 20_000;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i += 1) {
      const now = new Date(i).toISOString();
      await threads.insert(`t${i}`, { ...base, thread_id: `t${i}`, created_at: now, updated_at: now, metadata: {} });
    }
    gc();
    const perRecord = (process.memoryUsage().heapUsed - before) / count;
    // ~440 bytes a record here (the store's own bookkeeping included) with its copy kept and
    // its three empty objects shared, ~560 with an empty object of its own for each, ~780 when
    // the spread record was frozen in place
    assert.ok(perRecord < 500, `${Math.round(perRecord)} bytes of heap a record`);
    assert.ok(Object.isFrozen(await threads.get('t7')));
  } finally {
    await store.close();
  }
});

test('a frozen value made from JSON text is a frozen copy of its parse, the text remembered as its JSON', () => {
  const text = '{"messages":[{"content":"\\u0041","additional_kwargs":{}}],"n":[]}';
  const value = frozenFromJson(text) as { messages: { content: string; additional_kwargs: object }[]; n: unknown[] };
  assert.deepEqual(value, JSON.parse(text));
  assert.ok(Object.isFrozen(value) && Object.isFrozen(value.messages[0]));
  assert.equal(jsonTextOf(value), text);
  assert.equal(value.messages[0]!.additional_kwargs, frozenCopy({}), 'empty objects are the shared one, as in any frozen copy');
  assert.equal(jsonTextOf(value.messages[0]!.additional_kwargs), undefined, "the shared empty object is nobody's text");
  assert.equal(jsonTextOf(frozenFromJson('{ }') as object), undefined);
  assert.equal(jsonTextOf(frozenCopy(JSON.parse(text) as object)), undefined, 'a value not made from its text has none');
  assert.equal(frozenFromJson('"text"'), 'text');
});

test('a value made from JSON text is frozen all through as frozenCopy would give it, and its depth taken in the same walk', () => {
  // issue 91: the parse is frozen in place (nobody else holds it), not copied; the store takes its depth from here
  const text = '{"a":[{},[],[[1,{"b":[]}]],null,"x",2.5],"__proto__":{"c":{}},"d":{"e":{"f":"g"}}}';
  const value = frozenFromJson(text) as Record<string, unknown> & { a: unknown[]; d: { e: object } };
  assert.deepEqual(value, frozenCopy(JSON.parse(text)));
  assert.equal(Object.getPrototypeOf(value), Object.prototype, 'an own __proto__ is data, not the prototype');
  assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, { c: {} });
  const frozenAll = (v: unknown): boolean => v === null || typeof v !== 'object' || (Object.isFrozen(v) && Object.values(v).every(frozenAll));
  assert.ok(frozenAll(value));
  assert.equal(value.a[0], frozenCopy({}), 'empty objects are the shared one');
  assert.equal(value.a[1], frozenCopy([]), 'empty arrays are the shared one');
  assert.equal(madeFromJson(value)?.depth, 6);
  assert.equal(madeFromJson(value)?.text, text);
  for (const [json, depth] of [
    ['[1]', 1],
    ['{"a":{}}', 2],
    ['[[],[[[]]]]', 4],
    ['{"a":"[[[[{"}', 1],
  ] as const)
    assert.equal(madeFromJson(frozenFromJson(json) as object)?.depth, depth, json);
  assert.equal(madeFromJson(frozenCopy(JSON.parse(text) as object)), undefined, 'a value not made from its text has none');
});

test('a frozen copy along a previous value shares each part holding the same data, and copies the rest', () => {
  const message = (i: number) => ({ type: 'human', content: `message ${i}`, id: `m${i}`, additional_kwargs: {}, extra: [i, null, { deep: true }] });
  const previous = frozenCopy({ messages: [message(0), message(1)], count: 2 });
  const next = { messages: [message(0), message(1), message(2)], count: 3 };
  const copy = frozenCopyAlong(next, previous);
  assert.deepEqual(copy, next);
  assert.equal(JSON.stringify(copy), JSON.stringify(frozenCopy(next)), 'the same JSON as a copy');
  assert.ok(Object.isFrozen(copy) && Object.isFrozen(copy.messages) && Object.isFrozen(copy.messages[2]));
  assert.equal(copy.messages[0], previous.messages[0], 'an unchanged message is the one held before');
  assert.equal(copy.messages[1], previous.messages[1]);
  assert.notEqual(copy.messages, previous.messages, 'the list that grew is new');
  assert.notEqual(copy.messages[2], next.messages[2], 'the new message is copied');

  // the whole value the same: the previous value itself
  assert.equal(frozenCopyAlong({ messages: [message(0), message(1)], count: 2 }, previous), previous);
  // a changed field deep inside: only its path is new
  const changed = frozenCopyAlong({ messages: [message(0), { ...message(1), extra: [1, null, { deep: false }] }], count: 2 }, previous);
  assert.equal(changed.messages[0], previous.messages[0]);
  assert.notEqual(changed.messages[1], previous.messages[1]);
  assert.equal(changed.messages[1]!.additional_kwargs, previous.messages[1]!.additional_kwargs, 'its unchanged parts shared');
  assert.equal((changed.messages[1]!.extra[2] as { deep: boolean }).deep, false);
});

test('a frozen copy along a previous value shares nothing whose JSON would differ: key order, a key more, -0, a class, a previous not frozen', () => {
  const previous = frozenCopy({ a: { x: 1, y: 2 }, b: { z: 0 }, c: { w: [1] } });
  const copy = frozenCopyAlong({ a: { y: 2, x: 1 }, b: { z: -0 }, c: { w: [1], v: undefined } }, previous);
  assert.notEqual(copy.a, previous.a, 'keys in another order');
  assert.ok(Object.is(copy.b.z, -0), '-0 kept');
  assert.notEqual(copy.c, previous.c, 'a key more (undefined)');
  assert.equal(copy.c.w, previous.c.w, 'its equal part still shared');
  const date = new Date(0);
  assert.equal(frozenCopyAlong({ d: date }, frozenCopy({ d: {} })).d, date, 'a class instance frozen in place, as frozenCopy does');
  const loose = { a: { x: 1, y: 2 } };
  assert.notEqual(frozenCopyAlong({ a: { x: 1, y: 2 } }, loose).a, loose.a, 'a previous value not frozen is not shared (someone may change it)');
  const proto = frozenCopyAlong(JSON.parse('{"__proto__":{"p":1}}') as Record<string, unknown>, previous);
  assert.deepEqual(Object.keys(proto), ['__proto__'], 'a key named __proto__ stays data');
});
