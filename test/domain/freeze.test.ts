// What the embedded store keeps: a frozen deep copy of each record (src/domain/freeze.ts),
// equal to what was written, and as small as a record built key by key. Frozen in place, a
// record made by spread (as the domain makes its records) cost ~280 bytes more: V8 gave each
// one a hidden class of its own. Empty objects and arrays are one shared frozen copy each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { frozenCopy, frozenFromJson, jsonTextOf, madeFromJson } from '../../src/domain/freeze.ts';

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
