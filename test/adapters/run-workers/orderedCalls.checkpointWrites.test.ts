// A run worker posts its thread's checkpoint writes without waiting for each answer when the
// run defers write failures ("async" and "exit" durability), and the main thread makes them
// in the order they were posted, none after one that failed (workers/orderedCalls.ts,
// StoreCheckpointer's `orderedStore`). The run still ends only once every write is on the store.
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { emptyCheckpoint } from '@langchain/langgraph';
import { StoreCheckpointer } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { OrderedCalls } from '../../../src/adapters/run-workers/orderedCalls.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { storeView, withPut } from '../../support/storeViews.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A promise with its resolve and reject at hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('OrderedCalls', () => {
  it('makes a key’s calls one after another, at once when none is before it, and other keys’ beside them', async () => {
    const calls = new OrderedCalls();
    const started: string[] = [];
    const first = deferred();
    const a1 = calls.run('a', () => (started.push('a1'), first.promise));
    assert.deepEqual(started, ['a1'], 'made at once, not a turn later');
    const a2 = calls.run('a', async () => void started.push('a2'));
    const b1 = calls.run('b', async () => void started.push('b1'));
    await turn();
    assert.deepEqual(started, ['a1', 'b1'], 'a2 waits for a1; b is another thread');
    first.resolve();
    await Promise.all([a1, a2, b1]);
    assert.deepEqual(started, ['a1', 'b1', 'a2']);
  });

  it('after a failed call the key’s later calls fail with its error without being made, until the key ends', async () => {
    const calls = new OrderedCalls();
    const made: string[] = [];
    const first = deferred();
    const a1 = calls.run('a', () => (made.push('a1'), first.promise));
    const a2 = calls.run('a', async () => void made.push('a2'));
    first.reject(new Error('disk full'));
    await assert.rejects(a1, /disk full/);
    await assert.rejects(a2, /disk full/);
    await assert.rejects(
      calls.run('a', async () => void made.push('a3')),
      /disk full/,
    );
    assert.deepEqual(made, ['a1']);
    calls.end('a');
    assert.deepEqual(calls.keys(), []);
    await calls.run('a', async () => void made.push('a4'));
    assert.deepEqual(made, ['a1', 'a4'], 'the thread’s next run writes again');
  });

  it('writes given while the key’s calls before them are made go as one, in order, while they fit; a call after them closes the batch', async () => {
    const calls = new OrderedCalls();
    const made: string[][] = [];
    const first = deferred();
    const makeMany = (items: string[]) => (made.push([...items]), items.includes('w1') ? first.promise : Promise.resolve());
    const fits = (batch: string[], next: string[]) => batch.length + next.length <= 3;
    const w1 = calls.batch('a', ['w1'], makeMany, fits);
    assert.deepEqual(made, [['w1']], 'made at once when nothing is before it');
    const joined = [calls.batch('a', ['w2'], makeMany, fits), calls.batch('a', ['w3', 'w4'], makeMany, fits)];
    const w5 = calls.batch('a', ['w5'], makeMany, fits);
    const read = calls.run('a', async () => void made.push(['read']));
    const w6 = calls.batch('a', ['w6'], makeMany, fits);
    await turn();
    assert.deepEqual(made, [['w1']], 'the others wait for the first');
    first.resolve();
    await Promise.all([w1, ...joined, w5, read, w6]);
    assert.deepEqual(made, [['w1'], ['w2', 'w3', 'w4'], ['w5'], ['read'], ['w6']], 'three fit one batch; nothing joins a batch past a call after it');
  });

  it('every write of a batch that fails fails with it, and nothing after it is made', async () => {
    const calls = new OrderedCalls();
    const made: string[][] = [];
    const first = deferred();
    const makeMany = (items: string[]) => (made.push([...items]), items.includes('w1') ? first.promise : Promise.reject(new Error('disk full')));
    const fits = () => true;
    const w1 = calls.batch('a', ['w1'], makeMany, fits);
    const batch = [calls.batch('a', ['w2'], makeMany, fits), calls.batch('a', ['w3'], makeMany, fits)];
    first.resolve();
    await w1;
    for (const w of batch) await assert.rejects(w, /disk full/);
    await assert.rejects(calls.batch('a', ['w4'], makeMany, fits), /disk full/);
    assert.deepEqual(made, [['w1'], ['w2', 'w3']]);
  });

  it('a call that throws at once fails alone as a rejection', async () => {
    const calls = new OrderedCalls();
    await assert.rejects(
      calls.run('a', () => {
        throw new Error('bad');
      }),
      /bad/,
    );
  });
});

const thread = (checkpoint_id?: string) => ({ configurable: { thread_id: 't1', checkpoint_ns: '', ...(checkpoint_id ? { checkpoint_id } : {}) } });

/** A store whose checkpoint puts and write batches each wait for `next()`, recording the order they are made in. */
function gatedWrites(store: Store, fail: (what: string) => boolean = () => false) {
  const gates: (() => void)[] = [];
  const made: string[] = [];
  const gated = (what: string, write: () => Promise<void>): Promise<void> =>
    new Promise<void>((resolve) => gates.push(resolve)).then(() => {
      if (fail(what)) throw new Error('disk full');
      made.push(what);
      return write();
    });
  const view = storeView(store, {
    // a pending write's id ends in its task's id and its slot
    // a checkpoint put is a write of the checkpoint alone (its id ends in the checkpoint's id)
    write: (ops) =>
      gated(
        ops.every((op) => op.collection === 'checkpoints')
          ? `put ${ops.map((op) => op.id.split('\u001f').at(-1)).join(',')}`
          : `write ${ops.map((op) => op.id.split('\u001f').at(-2)).join(',')}`,
        () => store.write(ops),
      ),
    collection: (name, inner) =>
      name === 'checkpoints' ? withPut(inner, (id, value) => gated(`put ${id.split('\u001f').at(-1)}`, () => inner.put(id, value))) : inner,
  });
  return { store: view, made, waiting: () => gates.length, next: () => gates.shift()?.() };
}

/** The checkpoints a run worker's checkpointer writes through: over a view making each thread's writes in order (the main thread's OrderedCalls). */
function orderedThrough(store: Store, calls: OrderedCalls) {
  return (threadId: string) =>
    new CollectionCheckpoints(
      storeView(store, {
        write: (ops) => calls.run(threadId, () => store.write(ops)),
        collection: (_name, inner) => withPut(inner, (id, value) => calls.run(threadId, () => inner.put(id, value))),
      }),
    );
}

/** Whether the promise settles within two turns of the event loop (a write held at the store does not). */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turn();
  await turn();
  return settled;
}

const ids = ['1ef00000-0000-6000-8000-000000000041', '1ef00000-0000-6000-8000-000000000042', '1ef00000-0000-6000-8000-000000000043'];

test('with an ordered store, a run that defers failures goes on without waiting for its writes; they are made in order and settled() waits for them', async () => {
  const backing = await openJournalStore({ dataDir: null });
  try {
    const gate = gatedWrites(backing);
    const saver = new StoreCheckpointer(new CollectionCheckpoints(gate.store), undefined, undefined, orderedThrough(gate.store, new OrderedCalls()));
    const hold = saver.hold('t1', { deferFailures: true });
    assert.ok(await settlesSoon(saver.put(thread(), { ...emptyCheckpoint(), id: ids[0] }, { source: 'input', step: -1, parents: {} } as never)));
    assert.ok(await settlesSoon(saver.putWrites(thread(ids[0]), [['messages', 'hi']], 'task-a')));
    assert.ok(await settlesSoon(saver.put(thread(ids[0]), { ...emptyCheckpoint(), id: ids[1] }, { source: 'loop', step: 0, parents: {} } as never)));
    assert.equal(gate.made.length, 0, 'every put and write resolved before any reached the store');
    let settled = false;
    const settling = hold.settled().then(() => (settled = true));
    while (gate.waiting() > 0 || gate.made.length < 3) {
      gate.next();
      await turn();
    }
    await settling;
    assert.equal(settled, true);
    assert.deepEqual(gate.made, [`put ${ids[0]}`, `write task-a`, `put ${ids[1]}`], 'made in the order LangGraph made them');
    hold.release(true);
    assert.equal((await new StoreCheckpointer(new CollectionCheckpoints(backing)).getTuple(thread()))?.checkpoint.id, ids[1]);

    // "sync" durability (no deferring): each put waits for its write, as in process
    const syncHold = saver.hold('t1');
    const put = saver.put(thread(ids[1]), { ...emptyCheckpoint(), id: ids[2] }, { source: 'loop', step: 1, parents: {} } as never);
    let resolved = false;
    void put.then(() => (resolved = true));
    await turn();
    assert.equal(resolved, false, 'a sync put resolves only once written');
    gate.next();
    await put;
    syncHold.release(true);
  } finally {
    await backing.close();
  }
});

test('with an ordered store, after a failed write nothing more of the run reaches the store, and settled() rejects with the failure', async () => {
  const backing = await openJournalStore({ dataDir: null });
  try {
    const gate = gatedWrites(backing, (what) => what === `put ${ids[0]}`);
    const saver = new StoreCheckpointer(new CollectionCheckpoints(gate.store), undefined, undefined, orderedThrough(gate.store, new OrderedCalls()));
    const hold = saver.hold('t1', { deferFailures: true });
    await saver.put(thread(), { ...emptyCheckpoint(), id: ids[0] }, { source: 'input', step: -1, parents: {} } as never);
    await saver.putWrites(thread(ids[0]), [['messages', 'hi']], 'task-a');
    await saver.put(thread(ids[0]), { ...emptyCheckpoint(), id: ids[1] }, { source: 'loop', step: 0, parents: {} } as never);
    gate.next();
    await assert.rejects(hold.settled(), /disk full/);
    assert.deepEqual(gate.made, [], 'the writes posted after the failed one were not made');
    assert.equal(gate.waiting(), 0);
    hold.release();
    assert.equal(await new StoreCheckpointer(new CollectionCheckpoints(backing)).getTuple(thread()), undefined);
  } finally {
    await backing.close();
  }
});

test('settledOrOrdered(): a run worker’s run that defers failures ends without waiting for its ordered writes; in process, or with a failure known, it is settled()', async () => {
  const backing = await openJournalStore({ dataDir: null });
  try {
    const gate = gatedWrites(backing, (what) => what === `put ${ids[1]}`);
    const calls = new OrderedCalls();
    const saver = new StoreCheckpointer(new CollectionCheckpoints(gate.store), undefined, undefined, orderedThrough(gate.store, calls));
    const hold = saver.hold('t1', { deferFailures: true });
    await saver.put(thread(), { ...emptyCheckpoint(), id: ids[0] }, { source: 'input', step: -1, parents: {} } as never);
    assert.ok(await settlesSoon(hold.settledOrOrdered()), 'the main thread makes the write and reports its failure');
    assert.equal(await settlesSoon(hold.settled()), false, 'settled() still waits for it');
    gate.next();
    await hold.settled();
    await saver.put(thread(ids[0]), { ...emptyCheckpoint(), id: ids[1] }, { source: 'loop', step: 0, parents: {} } as never);
    gate.next();
    await assert.rejects(hold.settled(), /disk full/);
    await assert.rejects(hold.settledOrOrdered(), /disk full/, 'a failure already answered fails the run in the worker');
    assert.match(String((calls.failure('t1')?.error as Error).message), /disk full/, 'the main thread’s calls know the failure too');
    hold.release();

    // no ordered store (in process): the run's writes are waited for
    const inProcess = new StoreCheckpointer(new CollectionCheckpoints(gate.store));
    const held = inProcess.hold('t2', { deferFailures: true });
    const put = inProcess.put({ configurable: { thread_id: 't2', checkpoint_ns: '' } }, { ...emptyCheckpoint(), id: ids[2] }, {
      source: 'input',
      step: -1,
      parents: {},
    } as never);
    while (gate.waiting() === 0) await turn();
    assert.equal(await settlesSoon(held.settledOrOrdered()), false);
    gate.next();
    await put;
    await held.settledOrOrdered();
    held.release(true);
  } finally {
    await backing.close();
  }
});

describe('a run worker’s checkpoint writes', () => {
  let store: Awaited<ReturnType<typeof openJournalStore>>;
  let pool: RunWorkerPool;
  /** Checkpoint ids in the order their puts reached the store. */
  const landed: string[] = [];
  /** Holds the first checkpoint put of each run, so that the ones after it arrive meanwhile. */
  let holdFirst = true;
  /** Lets the held first put go: when the run has published its answer (so later puts are queued), else after a while. */
  let releaseFirst: () => void = () => undefined;
  let holdAtMost = 150;
  const firstReleased = () =>
    new Promise<void>((resolve) => {
      const fallback = setTimeout(resolve, holdAtMost);
      releaseFirst = () => {
        clearTimeout(fallback);
        resolve();
      };
    });
  let failFirst = false;
  /** Store writes that held checkpoints. */
  let landedWrites = 0;

  before(async () => {
    store = await openJournalStore({ dataDir: null });
    // a checkpoint is put on its own, or with the channel values it stores in one write
    // (several, in one write, when they piled up behind one being made)
    const landing = async (checkpointIds: string[], make: () => Promise<void>) => {
      const first = holdFirst;
      holdFirst = false;
      if (first) await firstReleased();
      if (first && failFirst) throw new Error('disk full');
      landed.push(...checkpointIds);
      landedWrites += 1;
      return make();
    };
    const slowFirst = storeView(store, {
      write: (ops) => {
        const puts = ops.filter((op) => op.collection === 'checkpoints' && 'value' in op);
        const ids = puts.map((op) => ('value' in op ? (op.value as { checkpoint_id: string }).checkpoint_id : ''));
        return ids.length ? landing(ids, () => store.write(ops)) : store.write(ops);
      },
      collection: (name, inner) =>
        name !== 'checkpoints'
          ? inner
          : withPut(inner, (id, value) => landing([(value as { checkpoint_id: string }).checkpoint_id], () => inner.put(id, value))),
    });
    pool = testRunWorkerPool({
      graphs: { agent: './examples/graphs/agent.ts:agent' },
      store: slowFirst,
      kindOf: () => 'langgraph',
    });
  });

  after(async () => {
    await pool.stop();
    await store.close();
  });

  const run = (threadId: string): RunRecord =>
    pendingRun(uuid7(), threadId, {
      graph_id: 'agent',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content: 'what is 6 * 7?' }] }, stream_mode: ['values'], durability: 'async' },
    });

  it('reach the store in the order LangGraph made them, though the store answers the first one last', { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    landed.length = 0;
    landedWrites = 0;
    holdFirst = true;
    // the first put is held until the run has published its answer, not for a time that a loaded
    // machine may spend before LangGraph makes the next put
    let answered = false;
    holdAtMost = 30_000;
    const output = await pool.execute(run(threadId), new AbortController().signal, (_event, data) => {
      if (!answered && /The answer is 42/.test(JSON.stringify(data))) {
        answered = true;
        releaseFirst();
      }
    });
    assert.match(JSON.stringify(output.values), /The answer is 42/);
    assert.ok(landed.length >= 4, `an agent run puts a checkpoint per step (${landed.length})`);
    assert.deepEqual(landed, [...landed].sort(), 'each put after the one before');
    // the puts that arrived while the first was held were made together, not one write each
    assert.ok(landedWrites < landed.length, `${landed.length} checkpoints in ${landedWrites} writes`);
    const stored = await store.collection<{ checkpoint_id: string; thread_id: string }>('checkpoints').list({ where: { thread_id: threadId } });
    assert.equal(stored.length, landed.length, 'the run ended with every checkpoint on the store');
  });

  it(
    'after a failed write, none of the run’s later writes is made, the run fails with it, and the thread’s next run writes again',
    { timeout: 60_000 },
    async () => {
      const threadId = randomUUID();
      landed.length = 0;
      holdFirst = true;
      holdAtMost = 150;
      failFirst = true;
      await assert.rejects(
        pool.execute(run(threadId), new AbortController().signal, () => undefined),
        /disk full/,
      );
      failFirst = false;
      assert.deepEqual(landed, [], 'nothing after the failed put');
      assert.deepEqual(await store.collection('checkpoints').list({ where: { thread_id: threadId } }), []);
      assert.deepEqual(await store.collection('checkpoint_writes').list({ where: { thread_id: threadId } }), [], 'nor any pending write');
      const output = await pool.execute(run(threadId), new AbortController().signal, () => undefined);
      assert.match(JSON.stringify(output.values), /The answer is 42/);
      assert.ok(landed.length >= 4);
    },
  );
});
