// A list of one record by an order (a thread's newest checkpoint, read at every run's start on
// the main thread) is found in one pass over the matching records, not by sorting them all:
// the sort, and an object per record for it, grew with the thread's checkpoints at every run
// (issue 87). The order itself is the store contract's (test/support/orderByContract.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';

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
