// A run worker's run that defers failures ("async" durability) and holds its thread alone posts
// its checkpoint writes unanswered (protocol.ts's StoreCall): the main thread makes them in
// order and posts no reply for them, and the first that fails fails the run at its end. A
// "sync" run's writes are each answered, as LangGraph waits for each put.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import type { ToWorker } from '../../../src/adapters/run-workers/protocol.ts';
import type { WriteOp } from '../../../src/domain/ports/store.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

const checkpointIds = (ops: WriteOp[]) =>
  ops.flatMap((op) => (op.collection === 'checkpoints' && 'value' in op ? [(op.value as { checkpoint_id: string }).checkpoint_id] : []));

describe('a run worker pool, its runs that defer failures', () => {
  let store: Awaited<ReturnType<typeof openJournalStore>>;
  let pool: RunWorkerPool;
  /** Checkpoint writes made in order (orderedWrite), by thread. */
  const written = new Map<string, number>();
  /** The checkpoints those writes stored, by thread. */
  const stored = new Map<string, string[]>();
  /** The thread whose second ordered write fails. */
  let failingThread = '';
  /** Replies posted to the worker while `counting`. */
  let replies = 0;
  let counting = false;
  const postMessage = Worker.prototype.postMessage;

  before(async () => {
    Worker.prototype.postMessage = function (this: Worker, message: ToWorker, ...rest: unknown[]) {
      if (counting && message.type === 'reply') replies += 1;
      if (counting && message.type === 'replies') replies += message.replies.length;
      return (postMessage as (...args: unknown[]) => void).call(this, message, ...rest);
    } as typeof postMessage;
    store = await openJournalStore({ dataDir: null });
    pool = testRunWorkerPool({
      graphs: { agent: './examples/graphs/agent.ts:agent' },
      store,
      kindOf: () => 'langgraph',
      orderedWrite: async (ops) => {
        const [first] = ops;
        const threadId = first && 'value' in first ? String((first.value as { thread_id?: string }).thread_id) : '';
        const n = (written.get(threadId) ?? 0) + 1;
        written.set(threadId, n);
        if (threadId === failingThread && n === 2) throw new Error('disk full');
        await store.write(ops);
        stored.set(threadId, [...(stored.get(threadId) ?? []), ...checkpointIds(ops)]);
      },
    });
  });

  after(async () => {
    Worker.prototype.postMessage = postMessage;
    await pool.stop();
    await store.close();
  });

  const agentRun = (threadId: string, durability: 'async' | 'sync') =>
    pendingRun(uuid7(), threadId, {
      graph_id: 'agent',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content: 'what is 6 * 7?' }] }, stream_mode: ['values'], durability },
    });

  it('posts no reply for its checkpoint writes; a sync run’s are answered', { timeout: 60_000 }, async () => {
    // the worker loaded and warmed up first: its own calls are not the run's
    await pool.execute(agentRun(randomUUID(), 'async'), new AbortController().signal, () => undefined);
    const threadId = randomUUID();
    counting = true;
    const output = await pool.execute(agentRun(threadId, 'async'), new AbortController().signal, () => undefined);
    counting = false;
    assert.match(JSON.stringify(output.values), /The answer is 42/);
    assert.ok((written.get(threadId) ?? 0) >= 2, `its checkpoints were written in order (${written.get(threadId)})`);
    assert.equal(replies, 0, 'no reply to any of its calls');

    replies = 0;
    const syncThread = randomUUID();
    counting = true;
    await pool.execute(agentRun(syncThread, 'sync'), new AbortController().signal, () => undefined);
    counting = false;
    assert.ok(replies >= (written.get(syncThread) ?? 0) && replies > 0, `a sync run's writes are answered (${replies})`);
  });

  it('fails with the first of its checkpoint writes that failed, and nothing after it is written', { timeout: 60_000 }, async () => {
    failingThread = randomUUID();
    await assert.rejects(
      pool.execute(agentRun(failingThread, 'async'), new AbortController().signal, () => undefined),
      /disk full/,
    );
    const onStore = await store.collection<{ checkpoint_id: string }>('checkpoints').list({ where: { thread_id: failingThread } });
    assert.ok(onStore.length > 0);
    assert.deepEqual(onStore.map((c) => c.checkpoint_id).sort(), stored.get(failingThread), 'those of the write before the failed one, alone');
    assert.equal(written.get(failingThread), 2, 'no write made after the failed one');
  });
});
