// A run worker whose runs grew its heap well past its start is ended once it has held no run for
// a while, its memory with it (issue 67: a burst's memory comes back), and the next run starts a
// fresh worker; a worker holding a run is never ended for it, nor one whose runs stayed small,
// nor one home to a thread waiting for its resume (a human's answer to an interrupt), which must
// find the graph's per-thread module state there.
// The rule's own cases are test/runtime/idle/workerRetirement.test.ts; here the pool and real workers,
// with a short idle time so the test is quick. Bounds are generous: the machine may be loaded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import { pendingRun } from '../../support/runRecords.ts';
import type { RunOutput } from '../../../src/domain/agent/graphs/runContext.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

const MB = 1024 * 1024;
const IDLE_MS = 300;

/** A pool of `size` workers running the hoarding graphs, retiring idle workers after IDLE_MS. */
function hoardingPool(store: Awaited<ReturnType<typeof openJournalStore>>, size: number): RunWorkerPool {
  return testRunWorkerPool({
    graphs: { hoard: './test/fixtures/graphs/hoard.ts:hoard', hoardThenAsk: './test/fixtures/graphs/hoard.ts:hoardThenAsk' },
    store,
    compiled: true,
    size,
    // a first small run grows a fresh worker's heap ~15 MB (lazy imports, compiled code): half this
    retirement: { idleMs: IDLE_MS, heapGrowthBytes: 32 * MB },
  });
}

/** Runs the hoarding graph on a new thread in `pool` (as `owner`'s run, if given); the worker thread that ran it. */
async function hoardIn(pool: RunWorkerPool, context: { mb: number; hold_ms?: number }, owner?: string): Promise<string> {
  const run = pendingRun(uuid7(), randomUUID(), { graph_id: 'hoard', status: 'running', ...(owner ? { owner } : {}), kwargs: { input: {}, context } });
  const output = await pool.execute(run, new AbortController().signal, () => undefined);
  const messages = output.values.messages as { content: string }[];
  return messages.at(-1)!.content;
}

/** Waits (at most `ms`) for `pool` to have `count` workers; whether it came to that. */
async function workersIn(pool: RunWorkerPool, count: number, ms: number): Promise<boolean> {
  for (const until = performance.now() + ms; performance.now() < until; await sleep(50)) if (pool.workers() === count) return true;
  return pool.workers() === count;
}

describe('an idle run worker beside another idle one is retired (issue 91)', () => {
  let store: Awaited<ReturnType<typeof openJournalStore>>;
  let pool: RunWorkerPool;
  before(async () => {
    store = await openJournalStore({ dataDir: null });
    pool = hoardingPool(store, 2);
  });
  after(async () => {
    await pool.stop();
    await store.close();
  });

  it('two workers busy at once, then idle with small heaps: one is ended, the other kept warm for the next run', { timeout: 60_000 }, async () => {
    // two tenants' runs (one tenant's are packed into one worker of two), each holding its worker
    // long enough for the other to start beside it
    const both = await Promise.all([hoardIn(pool, { mb: 0, hold_ms: 1_500 }, 'tenant-a'), hoardIn(pool, { mb: 0, hold_ms: 1_500 }, 'tenant-b')]);
    assert.notEqual(both[0], both[1], 'the runs went to two workers');
    assert.ok(await workersIn(pool, 1, 20_000), 'idle beside another, one worker was retired');
    await sleep(IDLE_MS * 5);
    assert.equal(pool.workers(), 1, 'the last idle worker is kept');
    assert.ok(both.includes(await hoardIn(pool, { mb: 0 })), 'the next run found the kept worker');
  });
});

describe('an idle run worker whose heap grew is retired', () => {
  let store: Awaited<ReturnType<typeof openJournalStore>>;
  let pool: RunWorkerPool;

  before(async () => {
    store = await openJournalStore({ dataDir: null });
    pool = hoardingPool(store, 1);
  });

  after(async () => {
    await pool.stop();
    await store.close();
  });

  const hoard = (context: { mb: number; hold_ms?: number }) => hoardIn(pool, context);
  /** Runs the LangGraph graph that hoards per thread, then asks, on `threadId`; its output. */
  const ask = (threadId: string, kwargs: Record<string, unknown>) =>
    pool.execute(pendingRun(uuid7(), threadId, { graph_id: 'hoardThenAsk', status: 'running', kwargs }), new AbortController().signal, () => undefined);
  /** The answer of the resumed graph: the worker thread and how many MB of its thread's hoard it found there. */
  const answerOf = (output: RunOutput) => JSON.parse((output.values.messages as { content: string }[]).at(-1)!.content) as { worker: number; found_mb: number };
  /** Stops a thread's run for input having grown its worker's heap 48 MB. */
  const askAfterHoarding = async (threadId: string) => {
    const asked = await ask(threadId, { input: { messages: [{ role: 'user', content: '48' }] } });
    assert.deepEqual(asked.next, ['ask'], 'the run stopped for input');
  };
  const workersCome = (count: number, ms: number) => workersIn(pool, count, ms);

  it('keeps an idle worker whose runs stayed small', { timeout: 60_000 }, async () => {
    await hoard({ mb: 0 });
    await sleep(IDLE_MS * 5);
    assert.equal(pool.workers(), 1);
  });

  it('never ends a worker holding a run, however large its heap; ends it once idle after', { timeout: 60_000 }, async () => {
    const first = await hoard({ mb: 0 });
    // the run grows the heap at once, then holds on for several idle times
    const held = hoard({ mb: 48, hold_ms: IDLE_MS * 6 });
    await sleep(IDLE_MS * 4);
    assert.equal(pool.workers(), 1, 'the worker holding the run is still there');
    assert.equal(await held, first, 'the run ended in the worker it started in');
    assert.ok(await workersCome(0, 20_000), 'idle after the large run, the worker was retired');
  });

  it('the next run after a retirement starts a fresh worker', { timeout: 60_000 }, async () => {
    const large = await hoard({ mb: 48 });
    assert.ok(await workersCome(0, 20_000), 'retired');
    const next = await hoard({ mb: 0 });
    assert.notEqual(next, large, 'a different worker thread');
    assert.equal(pool.workers(), 1);
  });

  it(
    "keeps a large idle worker while a thread's resume is awaited, which finds its module state there; ends it once resumed",
    { timeout: 60_000 },
    async () => {
      const thread = randomUUID();
      await askAfterHoarding(thread);
      // idle many times the idle time: a worker not kept goes within one or two (as below)
      await sleep(IDLE_MS * 10);
      assert.equal(pool.workers(), 1, 'the worker awaiting the resume was kept');
      const resumed = await ask(thread, { command: { resume: 'yes' } });
      assert.deepEqual(resumed.next, [], 'the resumed run ended');
      assert.equal(answerOf(resumed).found_mb, 48, "the resume found its thread's module state");
      assert.ok(await workersCome(0, 20_000), 'nothing awaited any more, the large idle worker was retired');
    },
  );

  it('ends a large idle worker once the thread whose resume it awaited is deleted', { timeout: 60_000 }, async () => {
    const thread = randomUUID();
    await askAfterHoarding(thread);
    await sleep(IDLE_MS * 5);
    assert.equal(pool.workers(), 1, 'kept while the resume is awaited');
    pool.forget(thread);
    assert.ok(await workersCome(0, 20_000), 'the thread deleted, the worker was retired without another run');
  });
});
