// seqOrder.ts: the positions of records in the order of their seqs, as a stable sort by seq gives
// them, packed or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seqOrder } from '../../../src/adapters/embedded/seqOrder.ts';

const bySort = (seqs: number[]) => [...seqs.keys()].sort((a, b) => seqs[a]! - seqs[b]! || a - b);

test('seqOrder gives the positions a stable sort by seq gives, equal seqs in the order they came', () => {
  const seqs = [5, 3, 9, 3, 1, 1_000_000, 0, 5, 2];
  assert.deepEqual([...seqOrder(Float64Array.from(seqs))], bySort(seqs));
  const many = Array.from({ length: 5_000 }, (_, i) => (i * 7_919) % 4_999);
  assert.deepEqual([...seqOrder(Float64Array.from(many))], bySort(many));
  assert.deepEqual([...seqOrder(new Float64Array(0))], []);
});

test('seqs too large to pack with their positions are sorted by a comparator instead, the same way', () => {
  const seqs = [2 ** 52, 3, 2 ** 51, 3, 7.5];
  assert.deepEqual([...seqOrder(Float64Array.from(seqs))], bySort(seqs));
});
