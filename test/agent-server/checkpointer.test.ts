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
      await local.put(thread(), { ...emptyCheckpoint(), id, channel_values: { step: i } }, {
        source: 'loop',
        step: i,
        parents: {},
        run_id: `run-${i}`,
      } as never);
    }
    for (const saver of [local, asWorker]) {
      const newest = await saver.getTuple(thread());
      assert.equal(newest?.checkpoint.id, ids[2]);
      assert.deepEqual(newest?.checkpoint.channel_values, { step: 2 });
      assert.equal(await saver.latestRunId('t1'), 'run-2');
    }

    await local.putWrites(
      thread(ids[2]),
      [
        ['messages', 'first'],
        ['other', 1],
      ],
      'task-a',
    );
    await asWorker.putWrites(
      thread(ids[2]),
      [
        ['messages', 'second'],
        ['__error__', { message: 'one' }],
      ],
      'task-a',
    );
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

test('writes on a checkpoint the saver put itself: first regular write still wins, and the store is not read to know it', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const writesListed: string[] = [];
    // counts the reads of checkpoint_writes: each is a round trip from a run worker (a query on PostgreSQL)
    const counting = Object.create(store, {
      collection: {
        value: (name: string, options: object) => {
          const collection = store.collection(name, options);
          return name === 'checkpoint_writes' ? { ...collection, list: (o?: object) => (writesListed.push(name), collection.list(o as never)) } : collection;
        },
      },
    });
    const saver = new StoreCheckpointer(counting);
    const id = '1ef00000-0000-6000-8000-000000000009';
    await saver.put(thread(), { ...emptyCheckpoint(), id }, { source: 'loop', step: 0, parents: {} } as never);
    await saver.putWrites(
      thread(id),
      [
        ['messages', 'first'],
        ['other', 1],
      ],
      'task-a',
    );
    await saver.putWrites(
      thread(id),
      [
        ['messages', 'second'],
        ['third', 3],
      ],
      'task-a',
    );
    await saver.putWrites(thread(id), [['messages', 'b']], 'task-b');
    assert.deepEqual(writesListed, [], 'putWrites on its own checkpoint reads no write slots from the store');

    // another saver (a replica, a fresh worker) did not put it: it reads the slots, and the first writes still win
    const other = new StoreCheckpointer(store);
    await other.putWrites(thread(id), [['messages', 'late']], 'task-a');
    const writes = ((await other.getTuple(thread(id)))?.pendingWrites ?? [])
      .map(([task, channel, value]) => `${task}/${channel}=${JSON.stringify(value)}`)
      .sort();
    assert.deepEqual(writes, ['task-a/messages="first"', 'task-a/other=1', 'task-b/messages="b"']);
  } finally {
    await store.close();
  }
});
