// The codes of packed records' kept strings (issue 91): one code a string while any field names
// it, the strings no field names let go in a sweep, and a string that comes and goes again and
// again keeps one entry, not a chain of deleted ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeptCodes } from '../../../src/adapters/embedded/keptCodes.ts';

test('a string has one code while any field names it, and reads back from it', () => {
  const codes = new KeptCodes();
  const a = codes.name('success');
  assert.equal(codes.name('success'), a);
  const b = codes.name('pending');
  assert.notEqual(a, b);
  assert.deepEqual([codes.valueOf(a), codes.valueOf(b)], ['success', 'pending']);
  codes.release(a);
  assert.equal(codes.valueOf(a), 'success', 'still named once');
  codes.release(a);
  assert.equal(codes.size, 1);
  assert.equal(codes.name('success'), a, 'unnamed but not yet swept: the same code again');
});

test('strings no field names are let go once they outnumber the named, and their codes are taken again', () => {
  const codes = new KeptCodes();
  const kept = codes.name('kept');
  const gone = Array.from({ length: 200 }, (_, i) => codes.name(`thread-${i}`));
  for (const code of gone) codes.release(code);
  assert.equal(codes.size, 1);
  assert.equal((codes as unknown as { byValue: Map<string, number> }).byValue.size < 100, true, 'swept');
  assert.equal(codes.valueOf(kept), 'kept');
  const again = codes.name('new');
  assert.ok(gone.includes(again), 'a code let go is taken again');
  assert.equal(codes.valueOf(again), 'new');
  // a status that comes and goes, with many others named, is one entry the whole time
  const many = Array.from({ length: 1_000 }, (_, i) => codes.name(`t-${i}`));
  const entries = () => (codes as unknown as { byValue: Map<string, number> }).byValue.size;
  const before = entries();
  for (let i = 0; i < 10_000; i += 1) codes.release(codes.name('running'));
  assert.equal(codes.size, 1_002, 'kept, new and the 1,000 named; running by none');
  assert.equal(entries(), before + 1, 'running held once, unnamed');
  assert.equal(many.length, 1_000);
});
