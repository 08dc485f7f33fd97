// The history's load after a start (issue 91) lets the event loop turn every `loadSlice` records
// (1,000 by default) in each of its steps: a shard's records kept, the journal since, their order
// and their setting. A restart's first requests then wait for a slice of the load, not for it
// whole: 5,000 records at a time and one sort of every record held them behind ~50–150 ms of CPU
// on 100,000 runs. Observed by counts, never by time: how many records each turn saw set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionState } from '../../../src/adapters/embedded/collectionState.ts';
import { tempDir } from '../../support/server.ts';

interface Run {
  run_id: string;
  thread_id: string;
  status: string;
  body: string;
}

const PAGED = { runs: ['run_id', 'thread_id', 'status'] };
const run = (i: number, status = 'success'): Run => ({ run_id: `r${i}`, thread_id: `t${i % 7}`, status, body: `b${i}` });

async function open(dir: string, loadSlice?: number) {
  const store = await openJournalStore({ dataDir: dir, paged: PAGED, cacheBytes: 1, shards: 4, loadAfterMs: null, loadSlice });
  return { store, runs: store.collection<Run>('runs', { indexes: ['thread_id'] }) };
}

/** Counts the records set into any collection's memory while it is installed (CollectionState.set). */
function countSets(): { count(): number; restore(): void } {
  const original = CollectionState.prototype.set;
  let n = 0;
  CollectionState.prototype.set = function (this: CollectionState, ...args: Parameters<typeof original>) {
    n += 1;
    return original.apply(this, args);
  };
  return { count: () => n, restore: () => (CollectionState.prototype.set = original) };
}

test('the load after a start sets at most 1,000 records between two turns of the event loop (a request waits for a slice, not the load)', async () => {
  const dir = tempDir('load-slices-');
  try {
    const first = await open(dir);
    for (let i = 0; i < 2_500; i += 1) await first.runs.put(`r${i}`, run(i));
    await first.store.close();
    const again = await open(dir);
    const sets = countSets();
    try {
      // one count a turn, taken by a callback queued as a request's would be, until the load ends
      const perTurn: number[] = [];
      let done = false;
      let last = 0;
      const turn = () => {
        perTurn.push(sets.count() - last);
        last = sets.count();
        if (!done) setImmediate(turn);
      };
      setImmediate(turn);
      again.store.loadInBackground();
      await again.store.loaded();
      done = true;
      // what was set after the last turn counted
      perTurn.push(sets.count() - last);
      assert.equal(sets.count(), 2_500);
      // 5,000 a turn before (all 2,500 at once here)
      assert.ok(Math.max(...perTurn) <= 1_000, `a turn saw ${Math.max(...perTurn)} records set`);
      assert.ok(perTurn.filter((n) => n > 0).length >= 3, `the records were set in turns of ${perTurn.filter((n) => n > 0).join(', ')}`);
    } finally {
      sets.restore();
      await again.store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('loaded in slices of 3 records, reads during and after the load answer as a load at once: the snapshot, the journal since, the order', async () => {
  const dir = tempDir('load-slices-order-');
  const copy = tempDir('load-slices-copy-');
  try {
    const first = await open(dir);
    try {
      for (let i = 0; i < 200; i += 1) await first.runs.put(`r${i}`, run(i, 'pending'));
      await first.store.flush();
      // the journal after the snapshot: updates, deletes and new records, across the shards
      for (let i = 0; i < 30; i += 1) await first.runs.put(`r${i}`, run(i, 'success'));
      for (let i = 100; i < 110; i += 1) await first.runs.delete(`r${i}`);
      for (let i = 200; i < 220; i += 1) await first.runs.put(`r${i}`, run(i, 'pending'));
      // as kill -9 leaves it: the snapshot and the journal since
      fs.cpSync(dir, copy, { recursive: true });
    } finally {
      await first.store.close();
    }
    fs.rmSync(path.join(copy, 'LOCK'));
    const again = await open(copy, 3);
    try {
      again.store.loadInBackground();
      // asked at different moments of the load
      const asked: Promise<unknown>[] = [];
      for (let k = 0; k < 20; k += 1) {
        asked.push(again.runs.get(`r${k * 11}`));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const answers = await Promise.all(asked);
      for (let k = 0; k < 20; k += 1) {
        const i = k * 11;
        const expected = i >= 100 && i < 110 ? undefined : run(i, i < 30 ? 'success' : 'pending');
        assert.deepEqual(answers[k], expected, `r${i}`);
      }
      // the collection's order is its records' first writes', across shards and the journal
      const ids = (await again.runs.list()).map((r) => r.run_id);
      const expected = [...Array(220).keys()].filter((i) => i < 100 || i >= 110).map((i) => `r${i}`);
      assert.deepEqual(ids, expected);
      assert.deepEqual(
        (await again.runs.list({ where: { thread_id: 't3' } })).map((r) => r.run_id),
        expected.filter((id) => Number(id.slice(1)) % 7 === 3),
      );
    } finally {
      await again.store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(copy, { recursive: true, force: true });
  }
});
