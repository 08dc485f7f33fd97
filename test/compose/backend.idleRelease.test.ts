// An idle server's release reaches the embedded store and its finished runs' event logs through
// the backend compose makes (cli/main.ts hands the server's `releaseUnused`, which is the
// backend's, to the idle collector: runtime/idle/idleCollector.ts; issue 86): a thread read and
// cached is dropped from the cache and reads back the same from disk, and a finished run's log
// is dropped. Through the backend alone, not a started server: the rule is the backend's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBackend } from '../../src/compose/backend.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import { InMemoryRunEventLog } from '../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { JsonText } from '../../src/shared/jsonText.ts';
import type { JournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../support/tempDirs.ts';

/** Lets performance.now() move past the last use, so that a release of what is unused for 0 ms takes it. */
function tick(): void {
  const at = performance.now();
  while (performance.now() <= at);
}

test("the embedded backend's releaseUnused drops the cached values and finished run logs nothing has used since", async () => {
  const dataDir = tempDir('agentplane-idle-release-');
  const nowhere = path.join(os.tmpdir(), 'agentplane-idle-release-project');
  const config = { ...loadConfig(['--data', dataDir], {}, nowhere), configFile: null, project: {}, databaseUrl: null, mock: false };
  const backend = await openBackend(config, createLogger('silent'));
  try {
    const { events } = await backend.runBackend();
    const threads = backend.store.collection<object>('threads');
    const thread = { thread_id: 't1', status: 'idle', metadata: { note: 'x'.repeat(10_000) } };
    await threads.put('t1', thread);
    assert.deepEqual(await threads.get('t1'), thread);
    await events.open('run-1', 't1');
    events.publish('run-1', 'values', new JsonText(JSON.stringify({ note: 'y'.repeat(10_000) })));
    await events.end('run-1');
    const logs = events as InMemoryRunEventLog;
    assert.ok(logs.finishedHeld > 0, 'the finished run is kept');

    const store = backend.store as JournalStore;
    assert.ok(store.cachedBytes > 0, 'the thread read is cached');
    assert.equal(backend.releaseUnused!(60_000), 0, 'used just now: kept');
    tick();
    assert.ok(backend.releaseUnused!(0) > 0, 'the thread read and the finished log are dropped');
    assert.equal(logs.finishedHeld, 0, 'the finished log is dropped');
    assert.equal(store.cachedBytes, 0, 'the cached thread is dropped');
    assert.equal(backend.releaseUnused!(0), 0, 'nothing left to drop');
    assert.deepEqual(await threads.get('t1'), thread, 'read back from disk the same');
  } finally {
    await backend.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
