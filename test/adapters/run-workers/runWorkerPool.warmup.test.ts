// The run worker warm-up (issue 89: the first run after a start paid for a worker's start, its
// first token at ~1.3-2 s where later runs took ~0.1 s): `warm()` starts a worker and loads the
// project's graphs in it before any run, once; the first run then goes to that worker.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import { tempDir } from '../../support/server.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

const marker = path.join(tempDir(), 'loads');
let store: Store;
let pool: RunWorkerPool;

before(async () => {
  // the workers copy the environment they start with
  process.env.LOAD_MARKER_FILE = marker;
  store = await openJournalStore({ dataDir: null });
  pool = testRunWorkerPool({
    graphs: { marked: './test/fixtures/graphs/loadMarker.ts:marked' },
    store,
    size: 2,
    kindOf: () => 'plain',
  });
});
after(async () => {
  await pool.stop();
  await store.close();
});

const loads = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);

it('starts one worker with the graphs loaded before any run, and no second one when warmed again', async () => {
  assert.equal(loads(), 0);
  await pool.warm();
  assert.equal(loads(), 1, 'the graphs were loaded in a worker before any run');
  await pool.warm();
  assert.equal(loads(), 1, 'warmed again: the worker there is kept, no other starts');
});
