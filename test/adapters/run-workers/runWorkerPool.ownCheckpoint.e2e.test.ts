// On the embedded store a run worker's checkpoint writes reach the main thread as their texts
// (embedded/textPut.ts), which it writes to the journal without holding their values; the thread's
// next run in the same worker then takes the newest checkpoint from the worker's own memory
// (ownHeads.ts, KnownReads.ownCheckpoint) instead of the main thread reading it back from disk for
// it, as long as nothing else wrote the thread's checkpoints since.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { openJournalStore, type JournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import { rootThreadNs } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { readingStore } from '../../support/readingStore.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';
import { tempDir } from '../../support/tempDirs.ts';

/** The store, noting each read of the checkpoints' collections. */
const recording = (store: Store, reads: string[]): Store =>
  readingStore(store, ['get', 'getMany', 'list'], (what) => {
    if (what.startsWith('checkpoint')) reads.push(what);
  });

const humanTexts = (values: Record<string, unknown>) =>
  ((values.messages ?? []) as { type: string; content: unknown }[]).filter((m) => m.type === 'human').map((m) => m.content);

describe("a thread's runs in one worker, its checkpoints written as their texts", () => {
  let pool: RunWorkerPool;
  let journal: JournalStore;
  let dataDir: string;
  const reads: string[] = [];

  before(async () => {
    dataDir = tempDir('agentplane-own-checkpoint-');
    journal = await openJournalStore({ dataDir });
    pool = testRunWorkerPool({
      graphs: { agent: './examples/graphs/agent.ts:agent' },
      store: recording(journal, reads),
      kindOf: () => 'langgraph',
      textPuts: { collections: journal.textPuts()!, write: (ops, thread) => journal.writeTexts(ops, thread), mark: (thread) => journal.checkpointMark(thread) },
    });
  });

  after(async () => {
    await pool.stop();
    await journal.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A run of the thread; the human messages of its end state, and the checkpoints' reads made for it. */
  async function turn(threadId: string, text: string): Promise<{ said: unknown[]; reads: string[] }> {
    reads.length = 0;
    const run: RunRecord = pendingRun(uuid7(), threadId, {
      graph_id: 'agent',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content: text }] }, stream_mode: ['values'] },
    });
    const output = await pool.execute(run, new AbortController().signal, () => undefined);
    return { said: humanTexts(output.values), reads: [...reads] };
  }

  it(
    'each run continues from the one before, the later ones without a read of the newest checkpoint, and the checkpoints are on disk',
    { timeout: 60_000 },
    async () => {
      const threadId = randomUUID();
      const first = await turn(threadId, 'one');
      assert.deepEqual(first.said, ['one']);
      assert.ok(first.reads.includes('checkpoints.list'), `the first run's newest checkpoint is read: ${first.reads.join(', ')}`);
      for (const [n, text] of ['two', 'three'].entries()) {
        const later = await turn(threadId, text);
        assert.deepEqual(later.said, ['one', 'two', 'three'].slice(0, n + 2));
        assert.deepEqual(later.reads, [], 'the worker held the newest checkpoint');
      }
      // the main thread reads them from the journal, as any reader after a restart
      const newest = await new CollectionCheckpoints(journal).newest(rootThreadNs(threadId));
      assert.ok(newest, 'the newest checkpoint is stored');
      assert.ok(JSON.stringify(newest).includes('three'));
    },
  );

  it(
    "a write of the thread's checkpoints by anything else between two runs sends the next run the newest checkpoint as stored",
    { timeout: 60_000 },
    async () => {
      const threadId = randomUUID();
      await turn(threadId, 'one');
      await turn(threadId, 'two');
      // the thread's checkpoints taken away by the main thread (as a reset of the thread's state would)
      const checkpoints = new CollectionCheckpoints(journal);
      const ops = (await checkpoints.all()).filter((record) => record.thread_id === threadId).map((record) => checkpoints.deleteOp(record));
      assert.ok(ops.length > 0);
      await checkpoints.write(ops);
      const third = await turn(threadId, 'three');
      assert.ok(third.reads.includes('checkpoints.list'), `the main thread read the newest checkpoint: ${third.reads.join(', ')}`);
      assert.deepEqual(third.said, ['three'], 'the run starts from the thread as stored, not from what its worker held');
    },
  );
});
