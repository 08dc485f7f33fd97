// A server on the embedded store loads its history's records (the paged collections: runs,
// threads, checkpoints) once it serves, not at a fixed time after the store opens (issue 91):
// 2 s after the open fell inside a start slowed by a loaded machine, and the load then held the
// main thread, chunk by chunk, while the start was still loading its graphs (a restart on
// 100,000 runs took 7.7 s at load 10 against a fresh start's 3.9 s).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { composeApplication } from '../../src/compose/application.ts';
import type { AppFactory } from '../../src/compose/area.ts';
import { areaApp } from '../support/area.ts';
import { tempDir, type InProcessApp } from '../support/server.ts';

/** A start that takes this long after the store opened: its graphs loading on a loaded machine. */
const SLOW_START_MS = 2_500;

/**
 * The paged shards opened from now on (the history's load opens them to read their saved
 * indexes, the files' trailers; a start after a clean stop with no run pending opens none).
 */
function indexReads(): { read: string[]; restore(): void } {
  const original = fs.openSync;
  const read: string[] = [];
  (fs as { openSync: typeof fs.openSync }).openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    if (typeof file === 'string' && /shard-\d+\.json$/.test(file)) read.push(path.basename(file));
    return (original as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync;
  return { read, restore: () => ((fs as { openSync: typeof fs.openSync }).openSync = original) };
}

test("a server begins loading its history's records once it serves, not inside a slow start (issue 91)", async () => {
  const dataDir = tempDir('agentplane-load-after-serving-');
  // a history: 200 runs, written to the snapshot's shards and their saved indexes by a clean stop
  const writer = await openJournalStore({ dataDir });
  const runs = writer.collection<object>('runs');
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
  for (let i = 0; i < 200; i += 1)
    await runs.put(`run-${i}`, {
      run_id: `run-${i}`,
      thread_id: `thread-${i % 20}`,
      status: 'success',
      assistant_id: 'a',
      created_at: at,
      updated_at: at,
      kwargs: {},
    });
  await writer.close();
  const reads = indexReads();
  let readDuringStart: string[] | undefined;
  const slowStart: AppFactory = async (deps) => {
    const made = await composeApplication(['control-plane'])(deps);
    const slow = {
      start: async () => {
        await delay(SLOW_START_MS);
        readDuringStart = [...reads.read];
      },
    };
    return { ...made, modules: [slow, ...made.modules] };
  };
  let app: InProcessApp | undefined;
  try {
    // one area is enough: the store is the backend's, opened and told to load by the server whatever it serves
    app = await areaApp('control-plane', { dataDir, app: slowStart });
    assert.deepEqual(readDuringStart, [], 'the history began to load before the server served');
    // once serving, the records come in without a request asking for them
    const deadline = Date.now() + 30_000;
    while (reads.read.length === 0 && Date.now() < deadline) await delay(20);
    assert.notDeepEqual(reads.read, [], 'the history did not begin to load once the server served');
  } finally {
    reads.restore();
    await app?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
