// A snapshot of a packed collection (runs, threads) finds each record's shard from its id's
// packed text, making a string of the ids of the shards it writes only (issue 91): the strings
// of every record, held until the snapshot ended, were ~6 MB of garbage a snapshot of 100,000
// runs left on the heap.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { test } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { PackedIds } from '../../../src/adapters/embedded/packedIds.ts';
import { tempDir } from '../../support/tempDirs.ts';

test('a snapshot with one shard of runs to write makes strings of that shard’s ids only, and every run reads back after it', async () => {
  const dataDir = tempDir('agentplane-snapshot-ids-');
  const ids = Array.from({ length: 2_000 }, () => randomUUID());
  const run = (id: string) => ({ run_id: id, thread_id: 't', status: 'success', owner: '', created_at: '2026-11-30T12:00:00.000Z' });
  const idOf = PackedIds.prototype.idOf;
  let made = 0;
  try {
    const store = await openJournalStore({ dataDir });
    const runs = store.collection<Record<string, unknown>>('runs', { indexes: ['thread_id'] });
    for (const id of ids) await runs.put(id, run(id));
    await store.flush();
    const last = randomUUID();
    await runs.put(last, run(last));
    PackedIds.prototype.idOf = function (this: PackedIds, handle: number) {
      made += 1;
      return idOf.call(this, handle);
    };
    await store.flush();
    PackedIds.prototype.idOf = idOf;
    // the one shard's ~2,000 / 64 ids, not all 2,001
    assert.ok(made < 200, `${made} ids made strings by the snapshot`);
    await store.close();
    const again = await openJournalStore({ dataDir });
    await again.loaded();
    const read = again.collection<Record<string, unknown>>('runs', { indexes: ['thread_id'] });
    assert.equal(await read.count(), 2_001);
    for (const id of [...ids, last]) assert.equal((await read.get(id))?.run_id, id);
    await again.close();
  } finally {
    PackedIds.prototype.idOf = idOf;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
