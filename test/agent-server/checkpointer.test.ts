// The LangGraph checkpoint saver over agentplane's store (src/domain/agent/checkpointer.ts):
// the newest checkpoint is the one with the highest id, a regular pending write keeps its
// first value (as upstream savers do) while a special one (an error, an interrupt) is
// replaced, and a run worker's saver, which asks the main thread for the newest checkpoint,
// sees exactly what the main thread's does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCheckpoint } from '@langchain/langgraph';
import { StoreCheckpointer, newestCheckpoint } from '../../src/domain/agent/checkpointer.ts';
import { openJournalStore } from '../../src/backends/embedded/journalStore.ts';

const thread = (checkpoint_id?: string) => ({ configurable: { thread_id: 't1', checkpoint_ns: '', ...(checkpoint_id ? { checkpoint_id } : {}) } });

test('newest checkpoint, first regular write wins, special writes are replaced — in process and as a run worker sees it', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const local = new StoreCheckpointer(store);
    const asWorker = new StoreCheckpointer(store, (threadNs) => newestCheckpoint(store, threadNs));
    // checkpoint ids are time-ordered; these sort as they were made
    const ids = ['1ef00000-0000-6000-8000-000000000001', '1ef00000-0000-6000-8000-000000000002', '1ef00000-0000-6000-8000-000000000003'];
    for (const [i, id] of ids.entries()) {
      await local.put(thread(), { ...emptyCheckpoint(), id, channel_values: { step: i } }, { source: 'loop', step: i, parents: {}, run_id: `run-${i}` } as never);
    }
    for (const saver of [local, asWorker]) {
      const newest = await saver.getTuple(thread());
      assert.equal(newest?.checkpoint.id, ids[2]);
      assert.deepEqual(newest?.checkpoint.channel_values, { step: 2 });
      assert.equal(await saver.latestRunId('t1'), 'run-2');
    }

    await local.putWrites(thread(ids[2]), [['messages', 'first'], ['other', 1]], 'task-a');
    await asWorker.putWrites(thread(ids[2]), [['messages', 'second'], ['__error__', { message: 'one' }]], 'task-a');
    await asWorker.putWrites(thread(ids[2]), [['__error__', { message: 'two' }]], 'task-a');
    const writes = (await asWorker.getTuple(thread(ids[2])))?.pendingWrites ?? [];
    assert.deepEqual(
      writes.map(([task, channel, value]) => [task, channel, value]).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [
        ['task-a', '__error__', { message: 'two' }],
        ['task-a', 'messages', 'first'],
        ['task-a', 'other', 1],
      ],
    );
  } finally {
    await store.close();
  }
});
