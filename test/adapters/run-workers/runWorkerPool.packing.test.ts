// A tenant's runs are packed into all but one of the run workers, the shared space of auth off
// and a server of one tenant too (issue 86): on 2 cores one run worker beside the main thread
// did the same runs with 0.55–0.79× the machine's CPU of two (scripts/bench/findings.md, h86r).
// So a lone tenant's runs, one of them computing without yielding, are all in one worker of a
// pool of two and the other is not started; another tenant's run then gets that other worker,
// answered while the first tenant's runs still hold theirs (issue 83). Counted, not timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import type { RunOutput } from '../../../src/domain/agent/graphs/runContext.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

/** The worker thread that ran a `hoard` run (its answer). */
const workerOf = (output: RunOutput) => (output.values as { messages: { content: string }[] }).messages.at(-1)!.content;

test("a lone tenant's runs, one computing, are all in one worker of two; another tenant's run gets the other at once", { timeout: 120_000 }, async () => {
  const store = await openJournalStore({ dataDir: null });
  // as the composition makes it with auth off or keys of one tenant (no tenantShares)
  const pool = testRunWorkerPool({
    graphs: { hoard: './test/fixtures/graphs/hoard.ts:hoard', busy: './test/fixtures/graphs/workers.ts:busy' },
    store,
    compiled: true,
    size: 2,
  });
  const stop = new AbortController();
  const runOf = (graph_id: string, context: Record<string, unknown>, owner?: string): RunRecord =>
    pendingRun(uuid7(), randomUUID(), { graph_id, status: 'running', ...(owner ? { owner } : {}), kwargs: { input: {}, context } });
  /** Executes the run; resolves once it was posted to its worker, with its end. */
  const start = async (run: RunRecord) => {
    let posted!: () => void;
    const inWorker = new Promise<void>((resolve) => (posted = resolve));
    const ended = pool.execute(run, stop.signal, () => undefined, posted);
    let settled = false;
    void ended.then(
      () => (settled = true),
      () => (settled = true),
    );
    await Promise.race([inWorker, ended]);
    return { ended, settled: () => settled };
  };
  try {
    const first = workerOf(await pool.execute(runOf('hoard', {}), stop.signal, () => undefined));
    // the shared space's runs (no owner): one that waits, one that computes without yielding
    const waits = await start(runOf('hoard', { hold_ms: 60_000 }));
    const computes = await start(runOf('busy', { busy_ms: 60_000 }));
    const third = await start(runOf('hoard', { hold_ms: 60_000 }));
    assert.equal(pool.workers(), 1, "the lone tenant's runs were spread over the workers instead of packed into one");
    // another tenant's run is not queued behind the computing run: the worker left starts for it
    const other = workerOf(await pool.execute(runOf('hoard', {}, 'tenant-b'), stop.signal, () => undefined));
    assert.notEqual(other, first, "the other tenant's run ran in the first tenant's worker");
    assert.equal(pool.workers(), 2);
    assert.deepEqual(
      [waits, computes, third].map((r) => r.settled()),
      [false, false, false],
      "the first tenant's runs ended before the other tenant's was answered",
    );
  } finally {
    stop.abort();
    await pool.stop();
    await store.close();
  }
});
