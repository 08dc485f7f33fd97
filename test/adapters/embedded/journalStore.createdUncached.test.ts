// A record created by an insert (a POST /threads) is new: no reader holds it yet, so its paged
// value is not put in the value cache (issue 86: 100,000 created threads each held as a cached
// value beside its packed row, ~17 MB of heap). Its first reader reads it from the journal, and
// it is cached from then on; a put of a record (an update) is cached as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { newThread, type ThreadRecord } from '../../../src/domain/agent/records.ts';
import { tempDir } from '../../support/server.ts';

test('an inserted thread is not cached until it is read; an update is; both survive a reopen', async () => {
  const dir = tempDir('created-uncached-');
  const first = await openJournalStore({ dataDir: dir });
  const created: ThreadRecord = newThread('t1', { n: 1 }, 'tenant-a');
  const second: ThreadRecord = newThread('t2', {}, 'tenant-a');
  try {
    const threads = new CollectionThreads(first);
    assert.equal(await threads.insert(created), true);
    assert.equal(first.cachedBytes, 0, 'a created thread is not in the cache');
    // what the list and count answer from is kept in memory all the same
    assert.equal(await threads.count({ owner: 'tenant-a', metadata: { n: 1 } }), 1);
    assert.deepEqual(await threads.get('t1'), created, 'its first reader reads it from the journal');
    const read = first.cachedBytes;
    assert.ok(read > 0, 'read once, it is cached');
    assert.equal(await threads.insert(created), false, 'an id taken is refused');
    await threads.update('t1', (t) => ({ ...t, status: 'busy' }));
    const updated = first.cachedBytes;
    assert.ok(updated > 0, 'an updated thread is cached');
    assert.equal(await threads.insert(second), true);
    assert.equal(first.cachedBytes, updated, 'a second create adds nothing to the cache');
  } finally {
    await first.close();
  }
  const again = await openJournalStore({ dataDir: dir });
  try {
    const threads = new CollectionThreads(again);
    assert.equal((await threads.get('t1'))?.status, 'busy');
    assert.deepEqual(await threads.get('t2'), second);
  } finally {
    await again.close();
  }
});
