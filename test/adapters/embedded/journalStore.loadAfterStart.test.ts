// A start does not wait for the paged collections' records (issue 91): it checks each paged
// shard's saved index by its head and resolves; the records come in after, and a request on a
// paged collection meanwhile waits for them. Whatever is asked before they are in answers as it
// would after: the snapshot's records, the journal's writes since (a kill -9's included), and
// the writes made while loading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/server.ts';

interface Run {
  run_id: string;
  thread_id: string;
  status: string;
  body: string;
}

const PAGED = { runs: ['run_id', 'thread_id', 'status'] };
const run = (i: number, status = 'success'): Run => ({ run_id: `r${i}`, thread_id: `t${i % 5}`, status, body: 'x'.repeat(300) + i });

async function open(dir: string) {
  const store = await openJournalStore({ dataDir: dir, paged: PAGED, few: { runs: { status: ['pending', 'running'] } }, cacheBytes: 1, shards: 4 });
  return { store, runs: store.collection<Run>('runs', { indexes: ['thread_id', 'status'] }), notes: store.collection<{ n: number }>('notes') };
}

/**
 * A directory as kill -9 leaves it after `write` (a snapshot, then the journal since), opened
 * again: the copy of a live store's directory, its lock (a live pid of this test) taken over.
 */
async function reopenedAfterKill(write: (first: Awaited<ReturnType<typeof open>>) => Promise<void>) {
  const dir = tempDir('load-after-');
  const copy = tempDir('load-after-copy-');
  const first = await open(dir);
  try {
    await write(first);
    fs.cpSync(dir, copy, { recursive: true });
  } finally {
    await first.store.close();
  }
  fs.rmSync(path.join(copy, 'LOCK'));
  return { copy, again: await open(copy) };
}

/** The names of the files read whole (readFileSync) while `opening` runs, then restored. */
async function filesReadWhile<T>(opening: () => Promise<T>): Promise<{ value: T; read: string[] }> {
  const original = fs.readFileSync;
  const read: string[] = [];
  (fs as { readFileSync: typeof fs.readFileSync }).readFileSync = ((file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof file === 'string') read.push(path.basename(file));
    return (original as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.readFileSync;
  try {
    return { value: await opening(), read };
  } finally {
    (fs as { readFileSync: typeof fs.readFileSync }).readFileSync = original;
  }
}

test('a start reads no paged shard nor saved index whole before it resolves; the records come in after', async () => {
  const dir = tempDir('load-after-');
  const first = await open(dir);
  for (let i = 0; i < 200; i += 1) await first.runs.put(`r${i}`, run(i));
  await first.store.close(); // a clean stop: snapshot and indexes written, the journal empty
  const { value: again, read } = await filesReadWhile(() => open(dir));
  try {
    assert.deepEqual(
      read.filter((name) => /^shard-\d+\.(json|index)$/.test(name)),
      [],
      'the start read a shard or an index whole',
    );
    let loaded = false;
    const whenLoaded = again.store.loaded().then(() => (loaded = true));
    assert.equal(loaded, false);
    // asked before the records are in: answered once they are, as after
    assert.equal(await again.runs.count(), 200);
    assert.deepEqual(await again.runs.get('r17'), run(17));
    await whenLoaded;
    assert.equal(loaded, true);
  } finally {
    await again.store.close();
  }
});

test('requests made while the records load answer as after: the snapshot, then the journal a kill -9 left, then the new writes', async () => {
  const { copy, again } = await reopenedAfterKill(async (first) => {
    for (let i = 0; i < 300; i += 1) await first.runs.put(`r${i}`, run(i, 'pending'));
    await first.store.flush();
    // the journal after the snapshot: updates, deletes and new records of the same shards
    for (let i = 0; i < 50; i += 1) await first.runs.put(`r${i}`, run(i, 'success'));
    for (let i = 50; i < 60; i += 1) await first.runs.delete(`r${i}`);
    for (let i = 300; i < 320; i += 1) await first.runs.put(`r${i}`, run(i, 'pending'));
  });
  try {
    // all asked at once, before the records are in; a collection held whole answers at once
    const note = again.notes.put('n1', { n: 1 });
    const asked = Promise.all([
      again.runs.get('r10'),
      again.runs.get('r55'),
      again.runs.insert('r55', run(55, 'new')),
      again.runs.insert('r0', run(0, 'again')),
      again.runs.update('r299', (current) => ({ ...current, status: 'success' })),
      again.runs.delete('r301'),
      again.runs.count({ where: { status: 'pending' } }),
    ]);
    await note;
    assert.deepEqual(await again.notes.get('n1'), { n: 1 });
    const [r10, r55, inserted55, inserted0, updated299, deleted301, pending] = await asked;
    assert.deepEqual(r10, run(10, 'success'));
    assert.equal(r55, undefined);
    assert.equal(inserted55, true);
    assert.equal(inserted0, false);
    assert.equal(updated299?.status, 'success');
    assert.equal(deleted301, true);
    // 250 pending in the snapshot (r50-r59 deleted, r0-r49 done), 20 in the journal; r299 done and r301 deleted since
    assert.equal(pending, 250 - 10 + 20 - 2);
    const check = async (runs: typeof again.runs) => {
      assert.equal(await runs.count(), 300 - 10 + 20 + 1 - 1);
      assert.deepEqual(await runs.get('r55'), run(55, 'new'));
      assert.deepEqual(await runs.get('r0'), run(0, 'success'));
      assert.deepEqual(await runs.get('r300'), run(300, 'pending'));
      // insertion order survives: the oldest first, r55 again last
      const ids = (await runs.list({ where: { thread_id: 't0' } })).map((r) => r.run_id);
      assert.deepEqual(ids.slice(0, 3), ['r0', 'r5', 'r10']);
      assert.equal(ids.at(-1), 'r55');
    };
    await check(again.runs);
    await again.store.close();
    const third = await open(copy);
    try {
      await check(third.runs);
    } finally {
      await third.store.close();
    }
  } finally {
    await again.store.close();
  }
});

test("before the records load, a look-up of a value few records hold (the runs left pending) is answered from the indexes' heads and the journal, and reads no record of the others", async () => {
  const { again } = await reopenedAfterKill(async (first) => {
    for (let i = 0; i < 400; i += 1) await first.runs.put(`r${i}`, run(i, i % 40 === 0 ? 'pending' : i % 55 === 0 ? 'running' : 'success'));
    await first.store.flush();
    // after the snapshot: one pending done, one new pending, one pending deleted, one done pending again
    await first.runs.put('r40', run(40, 'success'));
    await first.runs.put('r400', run(400, 'pending'));
    await first.runs.delete('r80');
    await first.runs.put('r7', run(7, 'pending'));
  });
  try {
    const { value: pending, read } = await filesReadWhile(() => again.runs.list({ where: { status: 'pending' } }));
    const { value: running } = await filesReadWhile(() => again.runs.list({ where: { status: 'running' } }));
    assert.deepEqual(read, [], 'the look-up read a file whole');
    const expected = [0, 7, 120, 160, 200, 240, 280, 320, 360, 400];
    assert.deepEqual(
      pending.map((r) => r.run_id),
      expected.map((i) => `r${i}`),
    );
    assert.deepEqual(pending[1], run(7, 'pending'));
    // the same as once every record is in
    await again.store.loaded();
    assert.deepEqual(await again.runs.list({ where: { status: 'pending' } }), pending);
    assert.deepEqual(await again.runs.list({ where: { status: 'running' } }), running);
    assert.deepEqual(
      running.map((r) => r.run_id),
      ['r55', 'r110', 'r165', 'r220', 'r275', 'r330', 'r385'],
    );
  } finally {
    await again.store.close();
  }
});

test('a stop before the records are loaded snapshots what was written without loading the collections it did not write to', async () => {
  const dir = tempDir('load-after-');
  const first = await open(dir);
  for (let i = 0; i < 100; i += 1) await first.runs.put(`r${i}`, run(i));
  await first.store.close();
  const again = await open(dir);
  await again.notes.put('n1', { n: 1 });
  const { read } = await filesReadWhile(() => again.store.close());
  assert.deepEqual(
    read.filter((name) => /^shard-\d+\.(json|index)$/.test(name)),
    [],
    'the stop read a shard or an index whole',
  );
  const third = await open(dir);
  try {
    assert.equal(await third.runs.count(), 100);
    assert.deepEqual(await third.notes.get('n1'), { n: 1 });
    assert.deepEqual(await third.runs.get('r99'), run(99));
  } finally {
    await third.store.close();
  }
});
