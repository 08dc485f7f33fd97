// A run worker's checkpoint writes, made in order by the pool, go through the backend's
// `orderedWrite` where it has one (PostgreSQL: with the runs' waiting events in the same
// statement, PgRunEventLog.writeCarrying): every one of them, none through the store's own
// write, and the run ends once they are all made.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import type { WriteOp } from '../../../src/domain/ports/store.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { storeView } from '../../support/storeViews.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

const checkpointIds = (ops: WriteOp[]) =>
  ops.flatMap((op) => (op.collection === 'checkpoints' && 'value' in op ? [(op.value as { checkpoint_id: string }).checkpoint_id] : []));

describe('a run worker pool with an orderedWrite', () => {
  let store: Awaited<ReturnType<typeof openJournalStore>>;
  let pool: RunWorkerPool;
  /** Checkpoint ids written through orderedWrite, and through the store's own write. */
  const ordered: string[] = [];
  const direct: string[] = [];

  before(async () => {
    store = await openJournalStore({ dataDir: null });
    const view = storeView(store, {
      write: (ops) => {
        direct.push(...checkpointIds(ops));
        return store.write(ops);
      },
    });
    pool = testRunWorkerPool({
      graphs: { agent: './examples/graphs/agent.ts:agent' },
      store: view,
      kindOf: () => 'langgraph',
      orderedWrite: async (ops) => {
        ordered.push(...checkpointIds(ops));
        await store.write(ops);
      },
    });
  });

  after(async () => {
    await pool.stop();
    await store.close();
  });

  it('writes every checkpoint of a held thread through it, in order, and ends the run once they are made', { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    const run = pendingRun(uuid7(), threadId, {
      graph_id: 'agent',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content: 'what is 6 * 7?' }] }, stream_mode: ['values'], durability: 'async' },
    });
    const output = await pool.execute(run, new AbortController().signal, () => undefined);
    assert.match(JSON.stringify(output.values), /The answer is 42/);
    assert.ok(ordered.length >= 4, `an agent run puts a checkpoint per step (${ordered.length})`);
    assert.deepEqual(ordered, [...ordered].sort(), 'each put after the one before');
    assert.deepEqual(direct, [], "none through the store's own write");
    const stored = await store.collection<{ checkpoint_id: string }>('checkpoints').list({ where: { thread_id: threadId } });
    assert.deepEqual(stored.map((c) => c.checkpoint_id).sort(), ordered, 'every checkpoint on the store when the run ended');
  });
});
