// On the embedded store the finished runs' event logs (inMemoryRunEventLog.ts, up to 16 MB of
// the last runs' final values) are counted in the budget of the store's value cache (issue 91):
// AGENTPLANE_STORE_CACHE_MB bounds the two together, where the logs were held beside a full
// cache before, outside any setting.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { InMemoryRunEventLog } from '../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { embeddedRunBackend } from '../../src/compose/backend.ts';
import { JsonText } from '../../src/shared/jsonText.ts';
import { tempDir } from '../support/tempDirs.ts';

const MB = 1024 * 1024;

/** A run that streamed a `values` event of `size` characters of worker text and ended. */
async function finish(events: InMemoryRunEventLog, runId: string, size: number): Promise<void> {
  await events.open(runId, 'owner');
  events.publish(runId, 'values', new JsonText(JSON.stringify({ messages: [{ type: 'ai', content: 'x'.repeat(size) }] })));
  await events.end(runId);
}

test("the finished runs' event logs and the store's value cache stay within the one budget (issue 91)", async () => {
  const dataDir = tempDir('agentplane-cache-share-');
  const budget = 4 * MB;
  const store = await openJournalStore({ dataDir, paged: { cps: ['thread_id'] }, cacheBytes: budget });
  try {
    const { events } = embeddedRunBackend(store, 30_000, store);
    const cps = store.collection<object>('cps');
    // ~8 MB of values written: the cache is full
    for (let i = 0; i < 2_000; i += 1) await cps.put(`c${i}`, { thread_id: `t${i % 20}`, text: `${i}`.repeat(1_000) });
    assert.ok(store.cachedBytes > budget * 0.9, `the cache is full: ${store.cachedBytes} bytes`);
    const log = events as InMemoryRunEventLog;
    for (let i = 0; i < 30; i += 1) await finish(log, `run-${i}`, 100_000);
    assert.ok(log.finishedHeld > 0.5 * MB, `finished logs are kept: ${log.finishedHeld} bytes`);
    // a quarter of the budget at most
    assert.ok(log.finishedHeld <= budget / 4, `the logs hold ${log.finishedHeld} bytes, over a quarter of ${budget}`);
    assert.ok(
      store.cachedBytes + log.finishedHeld <= budget,
      `the cache holds ${store.cachedBytes} bytes and the logs ${log.finishedHeld}: over the budget of ${budget}`,
    );
    // a value read again comes back from disk as it was written
    assert.deepEqual(await cps.get('c0'), { thread_id: 't0', text: '0'.repeat(1_000) });
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
