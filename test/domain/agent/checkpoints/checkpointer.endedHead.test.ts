// A run worker starts a thread's next run on the end state the thread's last run left in its
// checkpointer (endedHead), and the main thread may send that run no newest checkpoint of its own
// when nothing else wrote the thread since (run-workers/ownHeads.ts): so a run of the thread that
// ends without keeping its end state lets go of the one an earlier run kept, which is no longer
// the thread's newest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCheckpoint } from '@langchain/langgraph';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';

const thread = () => ({ configurable: { thread_id: 't1', checkpoint_ns: '' } });

test("a run that ends without keeping its end state lets go of the one the thread's run before kept", async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
    const put = (id: string) =>
      saver.put(thread(), { ...emptyCheckpoint(), id, channel_values: { messages: [{ type: 'human', content: id }] }, channel_versions: { messages: 1 } }, {
        source: 'loop',
        step: 0,
        parents: {},
      } as never);
    let hold = saver.hold('t1', { deferFailures: false, newest: null });
    await put('1ef00000-0000-6000-8000-000000000041');
    await hold.settled();
    hold.release(true);
    assert.equal(saver.endedHead('t1')?.record.checkpoint_id, '1ef00000-0000-6000-8000-000000000041');
    // the next run writes a checkpoint, then fails: the end state kept before is not the newest
    hold = saver.hold('t1', { deferFailures: false });
    await put('1ef00000-0000-6000-8000-000000000042');
    await hold.settled();
    hold.release(false);
    assert.equal(saver.endedHead('t1'), undefined);
  } finally {
    await store.close();
  }
});
