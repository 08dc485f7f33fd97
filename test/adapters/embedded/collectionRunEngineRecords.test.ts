// The run engine's records over the store's collections (RunEngineRecords), on both stores the
// composition root gives them: the embedded store, and PostgreSQL, whose collections are tables.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CollectionRunEngineRecords } from '../../../src/adapters/embedded/collectionRunEngineRecords.ts';
import { newThread } from '../../../src/domain/agent/records.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import { BACKENDS, openPagedStore, openStore } from '../../support/bothStores.ts';
import { pendingRun } from '../../support/runRecords.ts';

for (const backend of [...BACKENDS, 'paged'] as const) {
  describe(`the run engine's records on the ${backend} store`, () => {
    // 'paged': the embedded store on a data directory, its runs and threads read from disk (issue 91)
    const opened = async () => new CollectionRunEngineRecords(await (backend === 'paged' ? openPagedStore() : openStore(backend)));
    /** A thread with a pending, a running and a finished run, written together. */
    const seeded = async (records: CollectionRunEngineRecords) => {
      const threadId = randomUUID();
      const [pending, running, done] = ['pending', 'running', 'success'].map((status) =>
        pendingRun(uuid7(), threadId, { status: status as 'pending' | 'running' | 'success' }),
      );
      await records.write([records.putThread(newThread(threadId, {}, '')), records.putRun(pending), records.putRun(running), records.putRun(done)]);
      return { threadId, pending, running, done };
    };

    it("reads a thread's runs by status, and each record by id", async () => {
      const records = await opened();
      const { threadId, pending, running, done } = await seeded(records);
      const ids = (runs: { run_id: string }[]) => runs.map((r) => r.run_id).sort();
      assert.deepEqual(ids(await records.runsOfThread(threadId, 'pending')), [pending.run_id]);
      assert.deepEqual(ids(await records.runsOfThread(threadId, 'running')), [running.run_id]);
      assert.deepEqual(ids(await records.runsOfThread(threadId)), ids([pending, running, done]));
      assert.equal((await records.run(done.run_id))?.status, 'success');
      assert.equal((await records.thread(threadId))?.thread_id, threadId);
      assert.equal(await records.run(uuid7()), undefined);
      assert.equal(await records.thread(randomUUID()), undefined);
    });

    it('withdraws a run only while it is pending', async () => {
      const records = await opened();
      const { pending, running } = await seeded(records);
      assert.equal(await records.withdraw(pending.run_id, { ...pending, status: 'interrupted' }), true);
      assert.equal((await records.run(pending.run_id))?.status, 'interrupted');
      assert.equal(await records.withdraw(pending.run_id, { ...pending, status: 'interrupted' }), false, 'no longer pending');
      assert.equal(await records.withdraw(running.run_id, { ...running, status: 'interrupted' }), false);
      assert.equal((await records.run(running.run_id))?.status, 'running', 'a running run is left as it is');
      assert.equal(await records.withdraw(uuid7(), { ...pending, status: 'interrupted' }), false, 'none: nothing withdrawn');
    });

    it('changes a thread in place, and deletes runs and threads in one write', async () => {
      const records = await opened();
      const { threadId, pending, running, done } = await seeded(records);
      await records.updateThread(threadId, (thread) => ({ ...thread, status: 'error' }));
      assert.equal((await records.thread(threadId))?.status, 'error');
      await records.updateThread(randomUUID(), (thread) => ({ ...thread, status: 'error' }));
      await records.write([...[pending, running, done].map((r) => records.deleteRun(r.run_id)), records.deleteThread(threadId)]);
      assert.deepEqual(await records.runsOfThread(threadId), []);
      assert.equal(await records.thread(threadId), undefined);
    });
  });
}
