// The run store's summary of one assistant's runs in a window (what GET
// /assistants/{id}/metrics reads), on both stores: the same counts by status and the same
// percentile_cont-style duration percentiles, only the owner's runs, only this assistant's,
// only those created since the window's start.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPgStore, type PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgRunStore } from '../../../src/adapters/run-storage/pgRunStore.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionRunStore } from '../../../src/adapters/run-storage/collectionRunStore.ts';
import type { RunRecord, ThreadRecord } from '../../../src/domain/agent/records.ts';
import type { RunStore } from '../../../src/domain/ports/runStore.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { tempDir } from '../../support/tempDirs.ts';

const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close?.();
});

const HOUR = 3_600_000;
const now = Date.now();
const at = (msAgo: number) => new Date(now - msAgo).toISOString();

/** A run of `assistant` for `owner`, created `agoMs` ago, that lasted `tookMs` when it has finished. */
function run(id: string, owner: string, assistant: string, status: RunRecord['status'], agoMs: number, tookMs: number): RunRecord {
  return {
    run_id: id,
    thread_id: 'thread-1',
    assistant_id: assistant,
    owner,
    status,
    created_at: at(agoMs),
    updated_at: at(agoMs - tookMs),
    metadata: {},
    kwargs: {},
    multitask_strategy: 'reject',
    graph_id: 'g',
    attempt: 1,
  } as RunRecord;
}

// 'paged': the embedded store on a data directory, every run read from disk (issue 91)
for (const backend of ['embedded', 'paged', 'postgres'] as const) {
  describe(`an assistant's run summary on the ${backend} store`, () => {
    async function repositoryWith(runs: RunRecord[]): Promise<RunStore> {
      const store =
        backend === 'postgres'
          ? await openPgStore({ url: await migratedDatabaseUrl() })
          : await openJournalStore({ dataDir: backend === 'paged' ? tempDir('paged-metrics-') : null, cacheBytes: 1 });
      stores.push(store);
      // runs belong to a thread (a foreign key on PostgreSQL)
      const thread = { thread_id: 'thread-1', owner: 'alice', status: 'idle', created_at: at(0), updated_at: at(0), metadata: {}, values: null };
      await store.collection<ThreadRecord>('threads').put('thread-1', thread as unknown as ThreadRecord);
      const collection = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
      for (const r of runs) await collection.put(r.run_id, r);
      return backend === 'postgres' ? new PgRunStore(store as PgStore) : new CollectionRunStore(store);
    }

    it("counts the owner's runs of the assistant in the window by status, with interpolated duration percentiles", async () => {
      const repository = await repositoryWith([
        run('r1', 'alice', 'a1', 'success', 10_000, 100),
        run('r2', 'alice', 'a1', 'success', 20_000, 200),
        run('r3', 'alice', 'a1', 'error', 30_000, 300),
        run('r4', 'alice', 'a1', 'success', 40_000, 400),
        run('r5', 'alice', 'a1', 'pending', 5_000, 0),
        run('r6', 'alice', 'a1', 'running', 6_000, 0),
        // outside the window, another assistant, another owner: none counts
        run('old', 'alice', 'a1', 'error', 2 * HOUR, 50_000),
        run('other-assistant', 'alice', 'a2', 'error', 1_000, 9_000),
        run('other-owner', 'bob', 'a1', 'error', 1_000, 9_000),
      ]);
      const summary = await repository.summaryOfAssistant({ owner: 'alice', assistantId: 'a1', since: new Date(now - HOUR) });
      assert.deepEqual(summary.byStatus, { success: 3, error: 1, pending: 1, running: 1 });
      // finished durations 100, 200, 300, 400: p50 between 200 and 300, p95 at 95% of the way from rank 3 to 4
      assert.ok(Math.abs(summary.p50Ms! - 250) < 1e-6, `p50 ${summary.p50Ms}`);
      assert.ok(Math.abs(summary.p95Ms! - 385) < 1e-6, `p95 ${summary.p95Ms}`);
    });

    it('a window with no finished run has counts but no percentiles; an empty window has neither', async () => {
      const repository = await repositoryWith([run('p1', 'alice', 'a1', 'pending', 1_000, 0)]);
      const pendingOnly = await repository.summaryOfAssistant({ owner: 'alice', assistantId: 'a1', since: new Date(now - HOUR) });
      assert.deepEqual(pendingOnly, { byStatus: { pending: 1 }, p50Ms: null, p95Ms: null });
      const none = await repository.summaryOfAssistant({ owner: 'alice', assistantId: 'nobody-ran-me', since: new Date(now - HOUR) });
      assert.deepEqual(none.byStatus, {});
      assert.equal(none.p50Ms, null);
      assert.equal(none.p95Ms, null);
    });
  });
}
