// A record the embedded store keeps is copied frozen and weighed for its cache in one walk
// (issue 91): the copy must be frozenCopy's and the weight cacheCost's, whatever the record holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { cacheCost, frozenCopyAndCost } from '../../../src/adapters/embedded/pagedValues.ts';
import { frozenCopy } from '../../../src/domain/freeze.ts';
import { recordJson, rememberParts } from '../../../src/adapters/embedded/writtenParts.ts';

/** Plain data as requests bring it, with the odd parts a record may hold: frozen shares, Dates, empties, own `__proto__` keys, wide text, large numbers. */
const leaf = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constant(2 ** 40),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant({}),
  fc.constant([]),
  fc.date({ noInvalidDate: true }),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object'), tie('frozen'), tie('protoKey')),
  array: fc.array(tie('tree'), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie('tree'), { maxKeys: 5 }),
  frozen: tie('object').map((value) => frozenCopy(value)),
  protoKey: tie('tree').map((value) => JSON.parse(`{"__proto__": ${JSON.stringify(value ?? null) ?? 'null'}, "a": 1}`) as object),
}));
const record = fc.dictionary(fc.string({ maxLength: 8 }), tree, { maxKeys: 8 });

test('the one-walk copy is frozenCopy and its cost cacheCost, for any plain record', () => {
  fc.assert(
    fc.property(record, (value) => {
      const made = frozenCopyAndCost(value);
      assert.ok(made, 'a plain object not frozen is copied');
      assert.deepEqual(made.copy, frozenCopy(value));
      assert.ok(Object.isFrozen(made.copy));
      assert.equal(JSON.stringify(made.copy), JSON.stringify(value));
      assert.equal(made.cost, cacheCost(frozenCopy(value)));
    }),
    { numRuns: 500 },
  );
});

test('a part the store remembers is weighed as remembered, as cacheCost weighs it', () => {
  const values = frozenCopy({ messages: Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, content: 'x'.repeat(40) })) });
  const kept = frozenCopy({ values });
  rememberParts(kept, recordJson({ values }).fresh);
  const record = { thread_id: 't', values: kept.values, status: 'idle', metadata: {} };
  const made = frozenCopyAndCost(record)!;
  assert.equal(made.copy.values, kept.values, 'a frozen part is shared, not copied');
  assert.equal(made.cost, cacheCost(frozenCopy(record)));
  assert.ok(made.cost > cacheCost(frozenCopy({ ...record, values: {} })) + 40 * 40, 'the remembered part is weighed, text and all');
});

test('a value that is not a plain object not yet frozen is left to frozenCopy and cacheCost', () => {
  assert.equal(frozenCopyAndCost(Object.freeze({ a: 1 })), undefined);
  assert.equal(frozenCopyAndCost([1, 2]), undefined);
  assert.equal(frozenCopyAndCost(new Date(0)), undefined);
});
