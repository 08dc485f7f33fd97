// Runs and threads are paged (issue 91): their records stay on disk, and the scans across every
// record — an owner's runs in flight, an assistant's summary, a thread search and its count,
// expiry — answer from the fields memory keeps (pagedCollections.ts), reading from disk only the
// records they give back whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionRunStore } from '../../../src/adapters/run-storage/collectionRunStore.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { newThread, type ThreadRecord } from '../../../src/domain/agent/records.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { tempDir } from '../../support/server.ts';

/** How many reads of a file `act` makes (paged values are read with fs.readSync). */
async function readsDuring<T>(act: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const original = fs.readSync;
  let reads = 0;
  (fs as { readSync: typeof fs.readSync }).readSync = ((...args: Parameters<typeof fs.readSync>) => {
    reads += 1;
    return original(...args);
  }) as typeof fs.readSync;
  try {
    return { result: await act(), reads };
  } finally {
    (fs as { readSync: typeof fs.readSync }).readSync = original;
  }
}

test('scans of runs and threads read no record from disk, and a page reads only its records', async () => {
  const dir = tempDir('paged-scans-');
  const store = await openJournalStore({ dataDir: dir, cacheBytes: 1, shards: 4 });
  try {
    const runs = new CollectionRunStore(store);
    const threads = new CollectionThreads(store);
    const ops = [];
    for (let i = 0; i < 60; i += 1) {
      const owner = i % 2 ? 'tenant-a' : 'tenant-b';
      const thread: ThreadRecord = { ...newThread(`t${i}`, { n: i % 3 }, owner), values: { messages: ['x'.repeat(2000)] } };
      if (i % 10 === 0) thread.ttl = { strategy: 'delete', ttl_minutes: 5 };
      ops.push(threads.putOp(thread));
      const status = i % 4 === 0 ? 'pending' : 'success';
      ops.push(runs.putRun(pendingRun(`r${String(i).padStart(3, '0')}`, `t${i}`, { owner, status, kwargs: { input: 'y'.repeat(2000) } })));
    }
    await store.write(ops);
    for (const phase of ['journal', 'snapshot']) {
      if (phase === 'snapshot') await store.flush();
      // the records themselves are on disk: the 1-byte cache holds none
      assert.equal((await readsDuring(() => runs.get('r001'))).reads, 1, 'a run is read from disk');
      assert.equal((await readsDuring(() => threads.get('t1'))).reads, 1, 'a thread is read from disk');
      const none = async <T>(what: string, act: () => Promise<T>): Promise<T> => {
        const { result, reads } = await readsDuring(act);
        assert.equal(reads, 0, `${what} (${phase}) read ${reads} records from disk`);
        return result;
      };
      assert.equal(await none('countInFlight', () => runs.countInFlight('tenant-b')), 15);
      const since = new Date(Date.now() - 60_000);
      const summary = await none('summaryOfAssistant', () => runs.summaryOfAssistant({ owner: 'tenant-a', assistantId: 'a', since }));
      assert.equal(summary.byStatus.success, 30);
      assert.equal(await none('thread count', () => threads.count({ owner: 'tenant-a', metadata: { n: 1 } })), 10);

      const page = await readsDuring(() =>
        threads.search({ owner: 'tenant-a', metadata: { n: 1 } }, { sortBy: 'updated_at', order: 'desc', offset: 2, limit: 3 }),
      );
      assert.equal(page.result.length, 3);
      assert.ok(page.reads <= 3, `a page of 3 threads read ${page.reads} records`);
      assert.deepEqual(page.result[0]!.values, { messages: ['x'.repeat(2000)] });
      const byCreation = await readsDuring(() => threads.search({ owner: 'tenant-b' }, { sortBy: 'created_at', order: 'desc', offset: 0, limit: 2 }));
      assert.deepEqual(
        byCreation.result.map((t) => t.thread_id),
        ['t58', 't56'],
      );
      assert.ok(byCreation.reads <= 2, `a page of 2 threads read ${byCreation.reads} records`);
      const expiring = await readsDuring(() => threads.withTtl());
      assert.deepEqual(expiring.result.map((t) => t.thread_id).sort(), ['t0', 't10', 't20', 't30', 't40', 't50']);
      assert.ok(expiring.reads <= 6, `6 threads with a ttl read ${expiring.reads} records`);
      const pending = await readsDuring(() => runs.withStatus('tenant-b', ['pending']));
      assert.equal(pending.result.length, 15);
      assert.equal(pending.result[0]!.kwargs.input, 'y'.repeat(2000));
      assert.ok(pending.reads <= 15, `15 pending runs read ${pending.reads} records`);
    }
  } finally {
    await store.close();
  }
});
