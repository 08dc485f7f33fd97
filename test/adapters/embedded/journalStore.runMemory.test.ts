// What a run record costs the embedded store's heap once written (issue 91): its entry made with
// its place at once, and no index entry for a status most runs hold. Alone in its file: a heap
// measured after other tests in the same process read up to 50 bytes a record more or less.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/tempDirs.ts';

test('a run written costs under 152 bytes of heap: its entry made whole at once, and no index entry for a status most runs hold (issue 91)', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const dataDir = tempDir('agentplane-few-index-');
  const store = await openJournalStore({
    dataDir,
    paged: { runs: ['run_id', 'thread_id', 'status'] },
    few: { runs: { status: ['pending', 'running'] } },
    cacheBytes: 0,
  });
  try {
    const runs = store.collection<{ run_id: string; thread_id: string; status: string }>('runs', { indexes: ['thread_id', 'status'] });
    const count = 20_000;
    const ids = Array.from({ length: count }, (_, i) => `run-${String(i).padStart(8, '0')}-${'r'.repeat(20)}`);
    const threads = Array.from({ length: count / 10 }, (_, i) => `thread-${String(i).padStart(8, '0')}-${'t'.repeat(20)}`);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (const [i, id] of ids.entries()) await runs.put(id, { run_id: id, thread_id: threads[Math.floor(i / 10)]!, status: i % 1000 ? 'success' : 'pending' });
    gc();
    const perRecord = (process.memoryUsage().heapUsed - before) / count;
    // ~130-145 bytes a run; ~160-166 with each entry's place added after the entry was made (a
    // second object for the fields added), ~210 while the index of status held every `success` too
    assert.ok(perRecord < 152, `${Math.round(perRecord)} bytes of heap a run`);
    // the others are found by a scan of the kept fields, in the same order
    assert.equal(await runs.count({ where: { status: 'success' } }), count - count / 1000);
    assert.equal(await runs.count({ where: { status: 'pending' } }), count / 1000);
    assert.deepEqual(
      (await runs.list({ where: { status: 'success', thread_id: threads[0]! }, reverse: true, limit: 2 })).map((r) => r.run_id),
      [ids[9], ids[8]],
    );
    await runs.put(ids[0]!, { run_id: ids[0]!, thread_id: threads[0]!, status: 'success' });
    assert.deepEqual(await runs.list({ where: { status: 'pending' }, limit: 1, fields: ['run_id'] }), [{ run_id: ids[1000] }]);
    assert.equal((await runs.list({ where: { status: 'success' }, limit: 1 }))[0]!.run_id, ids[0]);
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
