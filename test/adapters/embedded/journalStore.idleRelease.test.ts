// An idle server's store gives back the cached values nothing has read or written for a while
// (issue 86: after a burst of large runs the hot thread's messages and the JSON of its values
// stayed cached on the main thread, ~30 MB, within the 64 MB budget, for good). A value used
// since stays; a dropped one is read back from disk as it was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/tempDirs.ts';

function after(since: number): number {
  let now = performance.now();
  while (now <= since) now = performance.now();
  return now;
}

test('releaseUnused drops the cached values not used within the time given, and keeps one read since', async () => {
  const dataDir = tempDir('agentplane-idle-release-');
  const store = await openJournalStore({ dataDir, paged: { cps: ['thread_id'] } });
  try {
    const cps = store.collection<{ thread_id: string; text: string }>('cps');
    for (let i = 0; i < 20; i += 1) await cps.put(`c${i}`, { thread_id: `t${i % 2}`, text: `${i}`.repeat(50_000) });
    const held = store.cachedBytes;
    assert.ok(held > 20 * 50_000, `the values are cached: ${held} bytes`);
    assert.equal(store.releaseUnused(60_000), 0, 'all used within the minute: nothing dropped');
    assert.equal(store.cachedBytes, held);
    const cut = performance.now();
    after(cut);
    // c7 read after the cut: used within the last `performance.now() - cut` ms
    await cps.get('c7');
    const dropped = store.releaseUnused(performance.now() - cut);
    assert.ok(dropped > 0 && dropped < held, `dropped ${dropped} of ${held} bytes`);
    assert.equal(store.cachedBytes, held - dropped);
    assert.ok(store.cachedBytes > 0 && store.cachedBytes < 3 * 50_000, `only the value read since stays: ${store.cachedBytes} bytes`);
    after(performance.now());
    store.releaseUnused(0);
    assert.equal(store.cachedBytes, 0, 'unused for 0 ms: everything');
    assert.deepEqual(await cps.get('c3'), { thread_id: 't1', text: '3'.repeat(50_000) }, 'read back from disk as written');
    assert.ok(store.cachedBytes > 0, 'and cached again');
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
