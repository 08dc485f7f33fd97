// A SetOp's `whileAny` (a thread's status while runs are pending on it, settled at every run's
// end) asks only whether some record matches: the write finds the first match, newest first,
// instead of counting every match (a one-thread queue of 100 runs walked its pending runs at
// each end: ~4% of the main thread's instructions a plain run, issue 91).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionState } from '../../../src/adapters/embedded/collectionState.ts';

interface Run {
  thread_id: string;
  status: string;
}

/** How many times `act` read a record's field to check it (each record a walk visits past its index). */
async function fieldsRead(act: () => Promise<unknown>): Promise<number> {
  const fieldOf = CollectionState.prototype.fieldOf;
  let reads = 0;
  CollectionState.prototype.fieldOf = function (this: CollectionState, ...args: Parameters<typeof fieldOf>) {
    reads += 1;
    return fieldOf.apply(this, args);
  };
  try {
    await act();
  } finally {
    CollectionState.prototype.fieldOf = fieldOf;
  }
  return reads;
}

async function runsStore() {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<Run>('runs', { indexes: ['thread_id', 'status'] });
  const threads = store.collection<{ status: string }>('threads');
  await threads.put('t', { status: 'idle' });
  const settle = () =>
    store.write([
      {
        collection: 'threads',
        id: 't',
        set: { status: 'idle' },
        whileAny: { collection: 'runs', where: { thread_id: 't', status: 'pending' }, set: { status: 'busy' } },
      },
    ]);
  return { store, runs, threads, settle };
}

test('whileAny sets its fields when a matching record is there, and only then', async () => {
  const { store, runs, threads, settle } = await runsStore();
  await settle();
  assert.equal((await threads.get('t'))?.status, 'idle', 'no runs');
  await runs.put('other', { thread_id: 'u', status: 'pending' });
  await runs.put('done', { thread_id: 't', status: 'success' });
  await settle();
  assert.equal((await threads.get('t'))?.status, 'idle', "another thread's pending run, this thread's finished one");
  await runs.put('queued', { thread_id: 't', status: 'pending' });
  await settle();
  assert.equal((await threads.get('t'))?.status, 'busy', 'a pending run on the thread');
  await runs.put('queued', { thread_id: 't', status: 'success' });
  await settle();
  assert.equal((await threads.get('t'))?.status, 'idle', 'its run ended');
  await store.close();
});

test("whileAny stops at the thread's newest pending run: one record checked behind 200 finished ones, not all", async () => {
  const { store, runs, settle } = await runsStore();
  // the thread's runs (201) fewer than the pending ones (301): its own runs are the index walked
  for (let i = 0; i < 200; i += 1) await runs.put(`r${String(i).padStart(4, '0')}`, { thread_id: 't', status: 'success' });
  for (let i = 0; i < 300; i += 1) await runs.put(`o${i}`, { thread_id: `u${i}`, status: 'pending' });
  await runs.put('r0200', { thread_id: 't', status: 'pending' });
  const reads = await fieldsRead(settle);
  assert.ok(reads <= 2, `${reads} records checked to find one pending run`);
  await store.close();
});
