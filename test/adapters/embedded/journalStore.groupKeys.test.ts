// After a restart, a thread's id is one string in memory for its groups in the three grouped
// collections (recordGroups.ts: checkpoints, writes, channel values) and its runs' thread_id,
// not a string of its own for each (issue 91: ~170 bytes a thread of a server's heap).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { test } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CHECKPOINT_KEY_SEPARATOR as SEP } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/tempDirs.ts';
import { liveHeapUsed } from '../../support/liveHeap.ts';

const GROUPED = ['checkpoints', 'checkpoint_writes', 'checkpoint_values'];

test("a thread's groups and its runs share one string of its id after a restart", async () => {
  const heapUsed = liveHeapUsed;
  const dataDir = tempDir('agentplane-group-keys-');
  const threads = Array.from({ length: 8_000 }, () => randomUUID());
  try {
    const first = await openJournalStore({ dataDir, cacheBytes: 0 });
    const runs = first.collection<object>('runs', { indexes: ['thread_id'] });
    const grouped = GROUPED.map((name) => first.collection<object>(name));
    for (const thread of threads) {
      const key = [thread, '', 'cp-1'].join(SEP);
      for (const [i, records] of grouped.entries())
        await records.put([key, 'task', String(i)].join(SEP), { thread_id: thread, thread_ns: '', checkpoint_id: 'cp-1', cp_key: key });
      const run = randomUUID();
      await runs.put(run, { run_id: run, thread_id: thread, status: 'success' });
    }
    await first.close();
    // loaded once before it is measured: what a first load makes once (the code it compiles, the
    // loader's own tables) is not the threads' (CI of fa2f13c8 read 905 where this reads ~830)
    const warm = await openJournalStore({ dataDir, cacheBytes: 0 });
    warm.collection<object>('runs', { indexes: ['thread_id'] });
    await warm.loaded();
    await warm.close();
    const before = heapUsed();
    const store = await openJournalStore({ dataDir, cacheBytes: 0 });
    try {
      store.collection<object>('runs', { indexes: ['thread_id'] });
      await store.loaded();
      const perThread = (heapUsed() - before) / threads.length;
      // ~1,050 with a string of the id for each of the three groups and the runs' field, ~780 with one
      assert.ok(perThread < 900, `${Math.round(perThread)} bytes of heap a thread`);
      const counted = await store.collection<{ thread_id: string }>('checkpoints').list({ where: { thread_id: threads[7]! } });
      assert.equal(counted[0]!.thread_id, threads[7]);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
