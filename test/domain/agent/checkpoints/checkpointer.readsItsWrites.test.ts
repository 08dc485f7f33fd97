// A read of a held thread's newest checkpoint sees every write the run began before it
// (src/domain/agent/checkpoints/checkpointer.ts): with "async" durability LangGraph does not wait for its
// putWrites and put before it reads its state at a run's end, so an interrupt written just
// before that read must be in it, however many ticks serialising the write takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCheckpoint } from '@langchain/langgraph';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';

const thread = (checkpoint_id?: string) => ({ configurable: { thread_id: 't1', checkpoint_ns: '', ...(checkpoint_id ? { checkpoint_id } : {}) } });
const ids = ['1ef00000-0000-6000-8000-000000000001', '1ef00000-0000-6000-8000-000000000002'];
const metadata = (step: number) => ({ source: 'loop', step, parents: {}, run_id: 'run-1' }) as never;

test('the newest checkpoint read while its writes and its put are still being made holds them', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
    await saver.langGraphSaver();
    const hold = saver.hold('t1');
    await saver.put(thread(), { ...emptyCheckpoint(), id: ids[0], channel_values: { step: 0 } }, metadata(0));
    // not awaited, as LangGraph's "async" durability leaves them: a write then the next put
    const written = saver.putWrites(thread(ids[0]), [['__interrupt__', [{ value: 'ask', id: 'i1' }]]], 'task-a');
    const newest = await saver.getTuple(thread());
    assert.equal(newest?.checkpoint.id, ids[0]);
    assert.deepEqual(
      newest?.pendingWrites?.map(([task, channel]) => [task, channel]),
      [['task-a', '__interrupt__']],
      'the interrupt begun before the read is in it',
    );
    const put = saver.put(thread(ids[0]), { ...emptyCheckpoint(), id: ids[1], channel_values: { step: 1 } }, metadata(1));
    assert.equal((await saver.getTuple(thread()))?.checkpoint.id, ids[1], 'the put begun before the read is what it reads');
    await Promise.all([written, put]);
    await hold.settled();
    hold.release(true);
  } finally {
    await store.close();
  }
});
