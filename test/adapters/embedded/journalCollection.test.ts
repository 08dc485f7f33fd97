// A list of one record by an order (a thread's newest checkpoint, read at every run's start on
// the main thread) is found in one pass over the matching records, not by sorting them all:
// the sort, and an object per record for it, grew with the thread's checkpoints at every run
// (issue 87). The order itself is the store contract's (test/support/orderByContract.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionState } from '../../../src/adapters/embedded/collectionState.ts';

test("the newest of a thread's 300 checkpoints is found without sorting them", async () => {
  const store = await openJournalStore({ dataDir: null });
  const checkpoints = store.collection<{ thread_id: string; checkpoint_id: string }>('cps', { indexes: ['thread_id'] });
  // ids time-ordered but written out of order, as a cancelled run's late write can be
  const order = Array.from({ length: 300 }, (_, i) => (i * 7919) % 300);
  for (const n of order) await checkpoints.put(`c${n}`, { thread_id: 't', checkpoint_id: `id-${String(n).padStart(4, '0')}` });
  const sort = Array.prototype.sort;
  let sorts = 0;
  Array.prototype.sort = function (this: unknown[], ...args: Parameters<typeof sort>) {
    sorts += 1;
    return sort.apply(this, args);
  } as typeof sort;
  try {
    const [newest] = await checkpoints.list({ where: { thread_id: 't' }, orderBy: 'checkpoint_id', reverse: true, limit: 1 });
    assert.equal(newest?.checkpoint_id, 'id-0299');
    const [below] = await checkpoints.list({ where: { thread_id: 't' }, orderBy: 'checkpoint_id', reverse: true, below: 'id-0150', limit: 1 });
    assert.equal(below?.checkpoint_id, 'id-0149');
  } finally {
    Array.prototype.sort = sort;
  }
  assert.equal(sorts, 0, `${sorts} sorts to find one record`);
  await store.close();
});

/** How many records' order keys `act` read (each record a pass visits). */
async function keysRead(act: () => Promise<unknown>): Promise<number> {
  const orderKey = CollectionState.prototype.orderKey;
  let reads = 0;
  CollectionState.prototype.orderKey = function (this: CollectionState, ...args: Parameters<typeof orderKey>) {
    reads += 1;
    return orderKey.apply(this, args);
  };
  try {
    await act();
  } finally {
    CollectionState.prototype.orderKey = orderKey;
  }
  return reads;
}

// a thread's checkpoints are a group of their own on a data directory (recordGroups.ts): here, a store of their own
test("a thread's newest checkpoint, written in order, is found without a pass over them: as many records read for 300 as for 3", async () => {
  const id = (n: number) => `id-${String(n).padStart(4, '0')}`;
  const reads: Record<number, number> = {};
  let store = await openJournalStore({ dataDir: null });
  let checkpoints = store.collection<{ thread_id: string; checkpoint_id: string }>('cps', { indexes: ['thread_id'] });
  const newest = (thread: string, below?: string) =>
    checkpoints.list({ where: { thread_id: thread }, orderBy: 'checkpoint_id', reverse: true, limit: 1, ...(below ? { below } : {}) });
  for (const count of [3, 300]) {
    await store.close();
    store = await openJournalStore({ dataDir: null });
    checkpoints = store.collection<{ thread_id: string; checkpoint_id: string }>('cps', { indexes: ['thread_id'] });
    for (let n = 0; n < count; n += 1) await checkpoints.put(`t${count}-${n}`, { thread_id: `t${count}`, checkpoint_id: id(n) });
    await newest(`t${count}`); // the first ask learns the order
    await checkpoints.put(`t${count}-${count}`, { thread_id: `t${count}`, checkpoint_id: id(count) });
    reads[count] = await keysRead(async () => assert.equal((await newest(`t${count}`))[0]?.checkpoint_id, id(count)));
  }
  assert.ok(reads[3]! <= 1);
  assert.equal(reads[300], reads[3], `records read for the newest of 300: ${reads[300]}, of 3: ${reads[3]}`);
  // a late write of an older one: still the newest, by a pass; once it is gone, found at the end again
  await checkpoints.put('late', { thread_id: 't300', checkpoint_id: id(150) });
  assert.equal((await newest('t300'))[0]?.checkpoint_id, id(300));
  assert.equal((await newest('t300', id(151)))[0]?.checkpoint_id, id(150));
  await checkpoints.delete('late');
  await newest('t300');
  assert.equal(await keysRead(async () => assert.equal((await newest('t300'))[0]?.checkpoint_id, id(300))), reads[3]);
  assert.equal((await newest('t300', id(151)))[0]?.checkpoint_id, id(150));
  await store.close();
});
