// A run's hand-over message is let go once posted (issue 87): it holds the run's first reads
// (its thread's newest checkpoint, the values' text), and the closures the pool keeps for the
// run's life kept it, for the whole run, on the main thread, through its scavenges.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { RunWorkerPool, type Handover } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { liveHeapUsed } from '../../support/liveHeap.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

let pool: RunWorkerPool;
let store: Store;

before(async () => {
  store = await openJournalStore({ dataDir: null });
  pool = testRunWorkerPool({
    graphs: { slow: './test/fixtures/agent-server/graphs.ts:slowEcho' },
    store,
    kindOf: () => 'plain',
  });
});

after(async () => {
  await pool.stop();
  await store.close();
});

test('a run under way holds no more its hand-over message once it was posted', { timeout: 60_000 }, async () => {
  const run = pendingRun(uuid7(), uuid7(), {
    graph_id: 'slow',
    status: 'running',
    kwargs: { input: { messages: [{ role: 'user', content: 'wait' }] }, context: { delay_ms: 30_000 } },
  });
  let held: WeakRef<object> | undefined;
  // the message as the pool's own hand-over makes it, holding what its first reads hold
  const handover: Handover = {
    prepare: async (_slot, given, known) => {
      const reads = { known, text: 'x'.repeat(100_000) };
      held = new WeakRef(reads);
      return { message: () => ({ type: 'run', run: given, known: reads.known }), posted: () => undefined };
    },
  };
  const stop = new AbortController();
  let posted!: () => void;
  const handed = new Promise<void>((resolve) => (posted = resolve));
  const running = pool.run(run, stop.signal, () => undefined, posted, handover);
  await handed;
  await nextTurn();
  liveHeapUsed();
  assert.ok(held !== undefined);
  assert.equal(held.deref(), undefined, 'the message and what it held are let go while the run goes on');
  stop.abort();
  await assert.rejects(running);
});
