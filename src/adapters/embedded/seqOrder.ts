// The order of a paged collection's records by their seq, for the history's load after a start
// (journalStore.ts, issue 91). The records of 64 shards and the journal come in no order across
// them, and a comparator's sort of 100,000 [id, entry] pairs held the event loop at once, in front
// of the first requests of a restart. A seq is a whole number: each one packed with its record's
// position into one float64 sorts natively, with no comparator called and no pair made.

/** The positions of `seqs` in ascending order of their seq, equal ones in the order they came. */
export function seqOrder(seqs: Float64Array): Uint32Array {
  const n = seqs.length;
  const bits = Math.max(1, Math.ceil(Math.log2(n + 1)));
  const scale = 2 ** bits;
  let highest = 0;
  let whole = true;
  for (const seq of seqs) {
    if (!(Number.isInteger(seq) && seq >= 0)) whole = false;
    else if (seq > highest) highest = seq;
  }
  const order = new Uint32Array(n);
  if (!whole || !Number.isSafeInteger(highest * scale + (scale - 1))) {
    // not packable (never seen: seqs count the store's writes from 1): the comparator's sort
    for (let i = 0; i < n; i += 1) order[i] = i;
    return order.sort((a, b) => seqs[a]! - seqs[b]! || a - b);
  }
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i += 1) packed[i] = seqs[i]! * scale + i;
  packed.sort();
  for (let i = 0; i < n; i += 1) order[i] = packed[i]! % scale;
  return order;
}
