// A run handed to a run worker comes with what it reads of its thread first (the plain-state
// head; for a LangGraph graph the newest checkpoint), read by the main thread just before
// (src/adapters/run-workers/firstReads.ts, read through the run store, src/adapters/run-storage/collectionRunStore.ts): the worker does not ask for them, and the runs of
// a thread still each continue from the state the one before left.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { readingStore } from '../../support/readingStore.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

/** Every read made of the store, with whether the run had been handed to its worker yet. */
interface Read {
  handedOver: boolean;
  what: string;
}

/** The store, recording each get and list it answers, with whether the run had been handed over. */
const recording = (store: Store, reads: Read[], handedOver: () => boolean): Store =>
  readingStore(store, ['get', 'list'], (what) => reads.push({ handedOver: handedOver(), what }));

const humanTexts = (values: Record<string, unknown>) =>
  ((values.messages ?? []) as { type: string; content: unknown }[]).filter((m) => m.type === 'human').map((m) => m.content);

describe('a run in a worker is sent its first reads', () => {
  let pool: RunWorkerPool;
  let store: Store;
  const reads: Read[] = [];
  let handedOver = false;

  before(async () => {
    store = await openJournalStore({ dataDir: null });
    const recorded = recording(store, reads, () => handedOver);
    pool = testRunWorkerPool({
      graphs: { echo: './examples/graphs/echo.ts:echo', agent: './examples/graphs/agent.ts:agent' },
      store: recorded,
      kindOf: (run) => (run.graph_id === 'agent' ? 'langgraph' : 'plain'),
    });
  });

  after(async () => {
    await pool.stop();
    await store.close();
  });

  /** Runs three runs on one thread; answers the reads made after each run was handed over. */
  async function threeRuns(graphId: string): Promise<string[][]> {
    const threadId = randomUUID();
    const late: string[][] = [];
    for (const turn of ['one', 'two', 'three']) {
      reads.length = 0;
      handedOver = false;
      const run: RunRecord = pendingRun(uuid7(), threadId, {
        graph_id: graphId,
        status: 'running',
        kwargs: { input: { messages: [{ role: 'user', content: `count the words of ${turn}` }] }, stream_mode: ['values'] },
      });
      const output = await pool.execute(
        run,
        new AbortController().signal,
        () => undefined,
        () => (handedOver = true),
      );
      // what the lifecycle does with a plain run's output when it records the run's end
      if (output.ops.length) await store.write(output.ops);
      assert.deepEqual(
        humanTexts(output.values),
        ['one', 'two', 'three'].slice(0, ['one', 'two', 'three'].indexOf(turn) + 1).map((t) => `count the words of ${t}`),
        'each run continues from the state the one before left',
      );
      assert.ok(
        reads.some((r) => !r.handedOver && r.what === 'plain_heads.get'),
        'the main thread read the head before handing the run over',
      );
      late.push(reads.filter((r) => r.handedOver).map((r) => r.what));
    }
    return late;
  }

  it('a LangGraph run does not ask for its thread head or newest checkpoint', { timeout: 60_000 }, async () => {
    for (const late of await threeRuns('agent')) {
      assert.ok(!late.includes('plain_heads.get'), `read after the hand-over: ${late.join(', ')}`);
      assert.ok(!late.includes('checkpoints.list'), `read after the hand-over: ${late.join(', ')}`);
      assert.ok(!late.includes('checkpoint_writes.list'), `read after the hand-over: ${late.join(', ')}`);
    }
  });

  it('a plain-function run does not ask for its thread head', { timeout: 60_000 }, async () => {
    for (const late of await threeRuns('echo')) assert.ok(!late.includes('plain_heads.get'), `read after the hand-over: ${late.join(', ')}`);
  });
});
