// The LangGraph checkpoint saver over agentplane's store (src/domain/agent/checkpoints/checkpointer.ts):
// the newest checkpoint is the one with the highest id, a regular pending write keeps its
// first value (as upstream savers do) while a special one (an error, an interrupt) is
// replaced, and a run worker's saver, which asks the main thread for the newest checkpoint,
// sees exactly what the main thread's does.
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCheckpoint } from '@langchain/langgraph';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';

const thread = (checkpoint_id?: string) => ({ configurable: { thread_id: 't1', checkpoint_ns: '', ...(checkpoint_id ? { checkpoint_id } : {}) } });

test('newest checkpoint, first regular write wins, special writes are replaced — in process and as a run worker sees it', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const local = new StoreCheckpointer(new CollectionCheckpoints(store));
    const asWorker = new StoreCheckpointer(new CollectionCheckpoints(store), (threadNs) => new CollectionCheckpoints(store).newest(threadNs));
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

/** A store whose reads of checkpoints and pending writes are counted: each is a round trip from a run worker (a query on PostgreSQL). */
function countingReads(store: Awaited<ReturnType<typeof openJournalStore>>, reads: string[]) {
  return Object.create(store, {
    collection: {
      value: (name: string, options: object) => {
        const collection = store.collection(name, options);
        const counted = (method: 'list' | 'get') => ({
          value: (...args: unknown[]) => (reads.push(`${name}.${method}`), (collection[method] as (...a: unknown[]) => unknown).apply(collection, args)),
        });
        return name === 'checkpoint_writes' || name === 'checkpoints' ? Object.create(collection, { list: counted('list'), get: counted('get') }) : collection;
      },
    },
  });
}

test('a run holding its thread: first regular write still wins, and what it put is not read back from the store', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const reads: string[] = [];
    const saver = new StoreCheckpointer(new CollectionCheckpoints(countingReads(store, reads)));
    const hold = saver.hold('t1');
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
    // two tasks of one superstep write side by side
    await Promise.all([saver.putWrites(thread(id), [['messages', 'b']], 'task-b'), saver.putWrites(thread(id), [['messages', 'c']], 'task-c')]);
    await saver.putWrites(thread(id), [['__error__', { message: 'one' }]], 'task-d');
    await saver.putWrites(thread(id), [['__error__', { message: 'two' }]], 'task-d');
    const pending = async (s: StoreCheckpointer) =>
      ((await s.getTuple(thread()))?.pendingWrites ?? []).map(([task, channel, value]) => `${task}/${channel}=${JSON.stringify(value)}`).sort();
    const expected = ['task-a/messages="first"', 'task-a/other=1', 'task-b/messages="b"', 'task-c/messages="c"', 'task-d/__error__={"message":"two"}'];
    assert.deepEqual(await pending(saver), expected);
    assert.equal(await saver.latestRunId('t1'), undefined);
    assert.deepEqual(reads, [], 'while the run holds the thread, its own checkpoints and writes are not read from the store');
    // what the store holds is the same, as a fresh saver (a replica, another worker) reads it
    assert.deepEqual(await pending(new StoreCheckpointer(new CollectionCheckpoints(store))), expected);

    // released: the next run (or an API call) reads the store, where another writer may have been since
    hold.release();
    const later = '1ef00000-0000-6000-8000-00000000000a';
    await new StoreCheckpointer(new CollectionCheckpoints(store)).put(thread(), { ...emptyCheckpoint(), id: later }, {
      source: 'update',
      step: 1,
      parents: {},
    } as never);
    assert.equal((await saver.getTuple(thread()))?.checkpoint.id, later);
    assert.ok(reads.length > 0);

    // another saver did not put it: it reads the slots, and the first writes still win
    const other = new StoreCheckpointer(new CollectionCheckpoints(store));
    await other.putWrites(thread(id), [['messages', 'late']], 'task-a');
    assert.deepEqual(
      ((await other.getTuple(thread(id)))?.pendingWrites ?? [])
        .filter(([task]) => task === 'task-a')
        .map(([, channel, value]) => `${channel}=${JSON.stringify(value)}`),
      ['messages="first"', 'other=1'],
    );
  } finally {
    await store.close();
  }
});

test('a run that holds its thread reads its newest checkpoint once; two runs holding one thread both read', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const id = '1ef00000-0000-6000-8000-000000000001';
    await new StoreCheckpointer(new CollectionCheckpoints(store)).put(thread(), { ...emptyCheckpoint(), id }, {
      source: 'loop',
      step: 0,
      parents: {},
    } as never);
    const reads: string[] = [];
    const saver = new StoreCheckpointer(new CollectionCheckpoints(countingReads(store, reads)));
    const hold = saver.hold('t1');
    assert.equal((await saver.getTuple(thread()))?.checkpoint.id, id);
    const once = reads.length;
    assert.equal((await saver.getTuple(thread()))?.checkpoint.id, id);
    assert.equal(reads.length, once, 'the second read of the newest checkpoint is answered from what the run knows');

    const second = saver.hold('t1');
    await saver.getTuple(thread());
    assert.ok(reads.length > once, 'with two runs on the thread, neither answers from what it knows');
    second.release();
    hold.release();
    hold.release();
  } finally {
    await store.close();
  }
});

/** A store whose checkpoint puts and write batches wait until `let go` is called, as a run worker's wait for the main thread. */
function slowWrites(store: Awaited<ReturnType<typeof openJournalStore>>, reads: string[], fail?: () => boolean) {
  const waiting: (() => void)[] = [];
  const later = <T>(write: () => Promise<T>) =>
    new Promise<void>((resolve) => waiting.push(resolve)).then(() => (fail?.() ? Promise.reject(new Error('disk full')) : write()));
  const counted = countingReads(store, reads);
  const slow = Object.create(counted, {
    collection: {
      value: (name: string, options: object) => {
        const collection = counted.collection(name, options);
        return name === 'checkpoints'
          ? Object.create(collection, { put: { value: (...args: unknown[]) => later(() => collection.put(...(args as [string, never]))) } })
          : collection;
      },
    },
    write: { value: (ops: never) => later(() => store.write(ops)) },
  });
  return { store: slow, letGo: () => waiting.splice(0).forEach((go) => go()), waiting: () => waiting.length };
}

test('a held thread: writes to a checkpoint still on its way to the store need no read, and settled() waits for every write', async () => {
  const backing = await openJournalStore({ dataDir: null });
  try {
    const reads: string[] = [];
    const slow = slowWrites(backing, reads);
    const saver = new StoreCheckpointer(new CollectionCheckpoints(slow.store));
    const hold = saver.hold('t1');
    const id = '1ef00000-0000-6000-8000-000000000011';
    // LangGraph puts a checkpoint and, before that put is done, the writes of its tasks
    const put = saver.put(thread(), { ...emptyCheckpoint(), id }, { source: 'loop', step: 0, parents: {} } as never);
    const writes = saver.putWrites(thread(id), [['messages', 'first']], 'task-a');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reads, [], 'the writes of a checkpoint the run is putting are known to be none yet');
    let settled = false;
    const settling = hold.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'settled waits for the writes still on their way');
    assert.equal(slow.waiting(), 2);
    slow.letGo();
    await Promise.all([put, writes, settling]);
    assert.equal(settled, true);
    // on the store: a fresh saver (another replica) reads both
    const stored = await new StoreCheckpointer(new CollectionCheckpoints(backing)).getTuple(thread());
    assert.equal(stored?.checkpoint.id, id);
    assert.deepEqual(
      stored?.pendingWrites?.map(([, channel, value]) => [channel, value]),
      [['messages', 'first']],
    );

    // with "async" durability the next step's writes come before the put of its checkpoint has begun
    const next = '1ef00000-0000-6000-8000-000000000013';
    const early = saver.putWrites(thread(next), [['messages', 'second']], 'task-b');
    await new Promise((resolve) => setImmediate(resolve));
    const nextPut = saver.put(thread(id), { ...emptyCheckpoint(), id: next }, { source: 'loop', step: 1, parents: {} } as never);
    await new Promise((resolve) => setImmediate(resolve));
    slow.letGo();
    await Promise.all([early, nextPut, hold.settled()]);
    assert.deepEqual(reads, [], 'a checkpoint newer than any the run knows has no writes to read');
    assert.deepEqual(
      (await saver.getTuple(thread()))?.pendingWrites?.map(([, channel, value]) => [channel, value]),
      [['messages', 'second']],
      'the writes put before their checkpoint stay known once it is put',
    );
    hold.release();
  } finally {
    await backing.close();
  }
});

test('a held thread: a failed checkpoint write rejects (sync) or is kept for settled() with nothing more written (async, exit); the thread is read afresh', async () => {
  const backing = await openJournalStore({ dataDir: null });
  try {
    const reads: string[] = [];
    let failing = true;
    const slow = slowWrites(backing, reads, () => failing);
    const saver = new StoreCheckpointer(new CollectionCheckpoints(slow.store));
    const hold = saver.hold('t1');
    const id = '1ef00000-0000-6000-8000-000000000012';
    const put = saver.put(thread(), { ...emptyCheckpoint(), id }, { source: 'loop', step: 0, parents: {} } as never);
    put.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    slow.letGo();
    await assert.rejects(hold.settled(), /disk full/);
    await assert.rejects(put, /disk full/);
    // what the run thought it had put is forgotten: the newest checkpoint is read from the store (none)
    failing = false;
    assert.equal(await saver.getTuple(thread()), undefined);
    assert.ok(reads.includes('checkpoints.list'));
    hold.release();

    // deferred: LangGraph awaits an "async" put only at the run's end, so a rejection before then would go unhandled
    failing = true;
    const deferring = saver.hold('t1', { deferFailures: true });
    const first = '1ef00000-0000-6000-8000-000000000031';
    const deferred = saver.put(thread(), { ...emptyCheckpoint(), id: first }, { source: 'loop', step: 0, parents: {} } as never);
    await new Promise((resolve) => setImmediate(resolve));
    slow.letGo();
    assert.deepEqual(await deferred, { configurable: { thread_id: 't1', checkpoint_ns: '', checkpoint_id: first } });
    failing = false;
    const second = '1ef00000-0000-6000-8000-000000000032';
    await saver.put(thread(first), { ...emptyCheckpoint(), id: second }, { source: 'loop', step: 1, parents: {} } as never);
    await saver.putWrites(thread(second), [['messages', 'x']], 'task-a');
    assert.equal(slow.waiting(), 0, 'after a failed write the run writes nothing more');
    await assert.rejects(deferring.settled(), /disk full/);
    deferring.release();
    assert.equal(await new StoreCheckpointer(new CollectionCheckpoints(backing)).getTuple(thread()), undefined, 'the store holds none of them');

    // the next run on the thread starts clean
    const next = saver.hold('t1', { deferFailures: true });
    const third = '1ef00000-0000-6000-8000-000000000033';
    const fresh = saver.put(thread(), { ...emptyCheckpoint(), id: third }, { source: 'loop', step: 0, parents: {} } as never);
    await new Promise((resolve) => setImmediate(resolve));
    slow.letGo();
    await fresh;
    await next.settled();
    next.release();
    assert.equal((await new StoreCheckpointer(new CollectionCheckpoints(backing)).getTuple(thread()))?.checkpoint.id, third);
  } finally {
    await backing.close();
  }
});

test('a held thread: its newest checkpoint is answered as the run put it; with pending writes it is read from the store, and what LangGraph does to it stays its own', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const reads: string[] = [];
    const saver = new StoreCheckpointer(new CollectionCheckpoints(countingReads(store, reads)));
    const hold = saver.hold('t1');
    const id = '1ef00000-0000-6000-8000-000000000021';
    const messages = [{ type: 'human', content: 'hi' }];
    await saver.put(thread(), { ...emptyCheckpoint(), id, channel_values: { messages }, channel_versions: { messages: 1 } }, {
      source: 'loop',
      step: 0,
      parents: {},
    } as never);
    const own = await saver.getTuple(thread());
    assert.equal(own?.checkpoint.id, id);
    assert.deepEqual(own?.checkpoint.channel_values, { messages });
    assert.deepEqual(own?.pendingWrites, []);
    assert.equal(own?.metadata?.source, 'loop');
    assert.deepEqual(reads, []);
    // the tuple's maps are its reader's: changing them changes nothing the saver answers next
    own!.checkpoint.channel_versions.messages = 99;
    (own!.checkpoint.channel_values as Record<string, unknown>).extra = 'x';
    const again = await saver.getTuple(thread());
    assert.deepEqual(again?.checkpoint.channel_versions, { messages: 1 });
    assert.deepEqual(again?.checkpoint.channel_values, { messages });

    // with a pending write the checkpoint comes from the store: LangGraph applies the writes to it
    await saver.putWrites(thread(id), [['messages', [{ type: 'ai', content: 'hello' }]]], 'task-a');
    const withWrites = await saver.getTuple(thread());
    assert.deepEqual(
      withWrites?.pendingWrites?.map(([, channel]) => channel),
      ['messages'],
    );
    assert.deepEqual(withWrites?.checkpoint.channel_values, { messages });
    (withWrites!.checkpoint.channel_values.messages as unknown[]).push({ type: 'ai', content: 'applied in place' });
    assert.deepEqual((await saver.getTuple(thread()))?.checkpoint.channel_values, { messages: [{ type: 'human', content: 'hi' }] });
    hold.release();
  } finally {
    await store.close();
  }
});

test("a thread's next run starts from the state its last successful run ended on, as put, once; after a failed run or a newer checkpoint it is read", async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
    let loads = 0;
    // the serialiser the store reads with is the graphs' saver's
    const { serde } = await saver.langGraphSaver();
    const load = serde.loadsTyped.bind(serde);
    serde.loadsTyped = async (type: string, data: Uint8Array | string) => {
      loads += 1;
      return load(type, data);
    };
    const put = (id: string, messages: unknown[]) =>
      saver.put(thread(), { ...emptyCheckpoint(), id, channel_values: { messages }, channel_versions: { messages: 1 } }, {
        source: 'loop',
        step: 0,
        parents: {},
      } as never);
    const ids = ['1ef00000-0000-6000-8000-000000000031', '1ef00000-0000-6000-8000-000000000032', '1ef00000-0000-6000-8000-000000000033'];
    const messages = [{ type: 'human', content: 'hi' }];

    let hold = saver.hold('t1');
    await put(ids[0], messages);
    await hold.settled();
    hold.release(true);

    // the next run: its state as the last run put it (only the metadata is read)
    hold = saver.hold('t1');
    loads = 0;
    const next = await saver.getTuple(thread());
    assert.equal(next?.checkpoint.id, ids[0]);
    assert.equal(next?.checkpoint.channel_values.messages, messages, 'the objects the last run put');
    assert.equal(next?.metadata?.source, 'loop');
    assert.equal(loads, 1);
    // this run fails: what it read may have been changed by its nodes, so nothing is kept
    (next!.checkpoint.channel_values.messages as unknown[]).push({ type: 'human', content: 'changed in place' });
    hold.release(false);
    loads = 0;
    const afterFailure = await saver.getTuple(thread());
    assert.deepEqual(afterFailure?.checkpoint.channel_values, { messages: [{ type: 'human', content: 'hi' }] }, 'read from the store');
    // read whole: the checkpoint, the messages value it names, its metadata
    assert.equal(loads, 3);

    // kept once: taken by the first read
    hold = saver.hold('t1');
    await put(ids[1], [...messages, { type: 'ai', content: 'hello' }]);
    await hold.settled();
    hold.release(true);
    loads = 0;
    await saver.getTuple(thread());
    assert.equal(loads, 1);
    loads = 0;
    await saver.getTuple(thread());
    assert.equal(loads, 3);

    // a newer checkpoint since (a state update): the kept one is not it
    hold = saver.hold('t1');
    await put(ids[1].replace(/2$/, '4'), messages);
    await hold.settled();
    hold.release(true);
    await put(ids[2].replace(/3$/, '5'), [{ type: 'human', content: 'updated' }]);
    loads = 0;
    const updated = await saver.getTuple(thread());
    assert.deepEqual(updated?.checkpoint.channel_values, { messages: [{ type: 'human', content: 'updated' }] });
    assert.equal(loads, 3);
  } finally {
    await store.close();
  }
});

test('the end states kept as put stay within their size: the oldest go first, and one larger than the limit is not kept', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    // room for two of the small states below: one measured as stored
    await new StoreCheckpointer(new CollectionCheckpoints(store)).put(
      { configurable: { thread_id: 'probe', checkpoint_ns: '' } },
      {
        ...emptyCheckpoint(),
        id: '1ef00000-0000-6000-8000-000000000040',
        channel_values: { messages: [{ type: 'human', content: 'p' }] },
      },
      { source: 'loop', step: 0, parents: {} } as never,
    );
    const [probe] = await store.collection<{ checkpoint: { text: string } }>('checkpoints').list({ where: { thread_id: 'probe' } });
    const saver = new StoreCheckpointer(new CollectionCheckpoints(store), undefined, Math.floor(probe.checkpoint.text.length * 2.5));
    let loads = 0;
    // the serialiser the store reads with is the graphs' saver's
    const { serde } = await saver.langGraphSaver();
    const load = serde.loadsTyped.bind(serde);
    serde.loadsTyped = async (type: string, data: Uint8Array | string) => {
      loads += 1;
      return load(type, data);
    };
    const config = (threadId: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
    const endRun = async (threadId: string, id: string, content: string) => {
      const hold = saver.hold(threadId);
      await saver.put(config(threadId), { ...emptyCheckpoint(), id, channel_values: { messages: [{ type: 'human', content }] } }, {
        source: 'loop',
        step: 0,
        parents: {},
      } as never);
      await hold.settled();
      hold.release(true);
    };
    const startFrom = async (threadId: string) => {
      loads = 0;
      await saver.getTuple(config(threadId));
      return loads === 1 ? 'kept' : 'read';
    };
    await endRun('a', '1ef00000-0000-6000-8000-000000000041', 'a');
    await endRun('b', '1ef00000-0000-6000-8000-000000000042', 'b');
    await endRun('c', '1ef00000-0000-6000-8000-000000000043', 'c');
    await endRun('big', '1ef00000-0000-6000-8000-000000000044', 'x'.repeat(1000));
    assert.deepEqual([await startFrom('a'), await startFrom('b'), await startFrom('c'), await startFrom('big')], ['read', 'kept', 'kept', 'read']);
  } finally {
    await store.close();
  }
});
