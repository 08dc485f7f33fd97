// The records of the grouped collections held in memory (recordGroups.ts: a thread's
// checkpoints, writes and channel values while in use, ~380 bytes of heap each) are counted in
// the value cache's budget, and the grouped collections share one number of them (issue 91):
// each held up to one record per 4 KB of the budget outside it, ~19 MB at the default 64 MB
// once old threads had been read, which the heap after runs on a long history was over its bound by.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { HELD_RECORD_BYTES, openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CHECKPOINT_KEY_SEPARATOR as SEP } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/server.ts';

const MB = 1024 * 1024;
const thread = (t: number) => `thread-${String(t).padStart(6, '0')}`;
const cpKey = (t: number, c: number) => [thread(t), '', `cp-${c}`].join(SEP);

test("the grouped collections' records held count in the value cache's budget, shared by the three", async () => {
  const dataDir = tempDir('agentplane-held-budget-');
  const budget = 16 * MB;
  const threads = 200;
  try {
    const first = await openJournalStore({ dataDir, cacheBytes: budget });
    const collections = ['checkpoints', 'checkpoint_writes', 'checkpoint_values'].map((name) => first.collection<object>(name));
    for (let t = 0; t < threads; t += 1)
      for (let c = 0; c < 10; c += 1)
        for (const [i, records] of collections.entries())
          await records.put([cpKey(t, c), 'task', String(i)].join(SEP), {
            thread_id: thread(t),
            thread_ns: '',
            checkpoint_id: `cp-${c}`,
            cp_key: cpKey(t, c),
            body: 'x'.repeat(4_000),
          });
    await first.close();
    // after a restart every thread is read again: each is held while used
    const store = await openJournalStore({ dataDir, cacheBytes: budget });
    try {
      const again = ['checkpoints', 'checkpoint_writes', 'checkpoint_values'].map((name) => store.collection<object>(name, { indexes: ['thread_id'] }));
      for (let t = 0; t < threads; t += 1) for (const records of again) assert.equal((await records.list({ where: { thread_id: thread(t) } })).length, 10);
      const held = store.heldGroupRecords;
      // one per 4 KB of the budget for the three together (4,096), not for each (12,288)
      assert.ok(held <= budget / 4096 + 3 * 10, `${held} records held`);
      assert.ok(held > 0);
      assert.ok(
        store.cachedBytes + held * HELD_RECORD_BYTES <= budget,
        `the cache holds ${store.cachedBytes} bytes and the ${held} records held ${held * HELD_RECORD_BYTES}: over the budget of ${budget}`,
      );
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
