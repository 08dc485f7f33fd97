// A thread's checkpoints share the channel values they have in common (checkpointer.ts `split`):
// a value a put leaves unchanged is stored once and named by every checkpoint holding it, on
// both stores. What LangGraph reads back is what LangGraph's own MemorySaver answers for the same
// runs (history, a fork from an older checkpoint, pending writes); a value goes when the last
// checkpoint naming it goes (a run rolled back, a prune, a thread deleted), a thread's copy has
// its own; and a checkpoint stored before values were stored apart reads as it was.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Annotation, MemorySaver, StateGraph, emptyCheckpoint, type BaseCheckpointSaver, type CheckpointTuple } from '@langchain/langgraph';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { CHECKPOINT_KEY_SEPARATOR as SEP, StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import type { Store } from '../../../../src/domain/ports/store.ts';
import { BACKENDS, openStore } from '../../../support/bothStores.ts';

const BIG = 'x'.repeat(100_000);
const OTHER = 'y'.repeat(100_000);

/** A graph that sets `big` once and then counts up to `steps`, a checkpoint per step. */
function counting(saver: BaseCheckpointSaver) {
  const State = Annotation.Root({
    big: Annotation<string>,
    count: Annotation<number>,
    log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  });
  return new StateGraph(State)
    .addNode('step', (state) => ({ count: (state.count ?? 0) + 1, log: [`step ${state.count ?? 0}`] }))
    .addConditionalEdges('step', (state) => (state.count >= 9 ? '__end__' : 'step'))
    .addEdge('__start__', 'step')
    .compile({ checkpointer: saver });
}

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

/** What LangGraph reads of a thread's history, without what differs by saver (ids, times). */
async function history(saver: BaseCheckpointSaver, threadId: string): Promise<unknown[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list(config(threadId))) tuples.push(tuple);
  return tuples.map((t) => ({
    values: t.checkpoint.channel_values,
    versions: t.checkpoint.channel_versions,
    seen: t.checkpoint.versions_seen,
    step: t.metadata?.step,
    source: t.metadata?.source,
    writes: t.pendingWrites?.map(([, channel, value]) => [channel, value]),
  }));
}

interface StoredValue {
  channel: string;
  thread_id: string;
  value: { text?: string };
}

const valuesOf = (store: Store, threadId: string) =>
  store.collection<StoredValue>('checkpoint_values', { indexes: ['thread_id'] }).list({ where: { thread_id: threadId } });

const textOf = async (store: Store, threadId: string) => {
  const checkpoints = await store
    .collection<{ checkpoint: { text?: string } }>('checkpoints', { indexes: ['thread_id', 'thread_ns'] })
    .list({ where: { thread_id: threadId } });
  const values = await valuesOf(store, threadId);
  return [...checkpoints.map((c) => c.checkpoint.text ?? ''), ...values.map((v) => v.value.text ?? '')].join('').length;
};

for (const backend of BACKENDS) {
  describe(`checkpoints share their unchanged values on the ${backend} store`, () => {
    it("ten checkpoints whose big value is unchanged hold one copy of it, and read back as LangGraph's MemorySaver answers", async () => {
      const store = await openStore(backend);
      const saver = await new StoreCheckpointer(new CollectionCheckpoints(store)).langGraphSaver();
      const reference = new MemorySaver();
      for (const s of [saver, reference]) await counting(s).invoke({ big: BIG }, config('t1'));
      const ours = await history(saver, 't1');
      assert.ok(ours.length >= 10, `a checkpoint per step (${ours.length})`);
      assert.deepEqual(ours, await history(reference, 't1'));
      const big = (await valuesOf(store, 't1')).filter((v) => v.channel === 'big');
      assert.equal(big.length, 1, 'the big value stored once');
      // once as the run's input (the `__start__` channel of the first checkpoint), once as `big`:
      // every checkpoint holding it whole would be ten times it
      const stored = await textOf(store, 't1');
      assert.ok(stored < 2.1 * BIG.length, `the thread's stored text is ${stored} characters, for a ${BIG.length}-character value`);
    });

    it('a fork from an older checkpoint (LangGraph counts its versions up again from there) reads its own values, and so does the branch it left', async () => {
      const store = await openStore(backend);
      const saver = await new StoreCheckpointer(new CollectionCheckpoints(store)).langGraphSaver();
      const reference = new MemorySaver();
      for (const s of [saver, reference]) {
        const graph = counting(s);
        await graph.invoke({ big: BIG }, config('t1'));
        const states = [];
        for await (const state of graph.getStateHistory(config('t1'))) states.push(state);
        // the checkpoint after three steps: its `count` is 3; a fork sets `big` and `count` anew
        const older = states.find((state) => state.values.count === 3)!;
        const forked = await graph.updateState(older.config, { big: OTHER, count: 7 }, 'step');
        await graph.invoke(null, forked);
      }
      assert.deepEqual(await history(saver, 't1'), await history(reference, 't1'));
    });

    it('a value goes with the last checkpoint naming it: a rolled-back run, a prune, a deleted thread; a copy has its own', async () => {
      const store = await openStore(backend);
      const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
      const graph = counting(await saver.langGraphSaver());
      await graph.invoke({ big: BIG }, { configurable: { thread_id: 't1', run_id: 'run-1' } });
      await saver.copyThread('t1', 't2');
      await graph.invoke({ big: OTHER }, { configurable: { thread_id: 't1', run_id: 'run-2' } });
      // each value by its first letter
      const bigValues = async (threadId: string) => (await valuesOf(store, threadId)).filter((v) => v.channel === 'big').map((v) => v.value.text?.slice(0, 2));
      assert.deepEqual((await bigValues('t1')).sort(), ['"x', '"y']);

      await saver.deleteRun('t1', 'run-2');
      assert.deepEqual(await bigValues('t1'), ['"x'], "the rolled-back run's value went with its checkpoints");
      assert.ok((await saver.getTuple(config('t1')))?.checkpoint.channel_values.big === BIG);

      await saver.prune('t1');
      assert.equal(await saver.count('t1'), 1);
      assert.ok((await saver.getTuple(config('t1')))?.checkpoint.channel_values.big === BIG, 'the kept checkpoint still reads the value older ones stored');
      assert.equal((await bigValues('t1')).length, 1);

      await saver.deleteThread('t1');
      assert.deepEqual(await valuesOf(store, 't1'), []);
      const copy = await saver.getTuple(config('t2'));
      assert.ok(copy?.checkpoint.channel_values.big === BIG, 'the copy reads its own values');
      assert.equal(copy?.checkpoint.channel_values.count, 9);
    });

    it('a checkpoint stored whole, before values were stored apart, reads as it was, and the next put stores what it holds', async () => {
      const store = await openStore(backend);
      const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
      // an old record, as the saver before this stored one: the whole checkpoint in its text, no `channels`
      const id = '1ef00000-0000-6000-8000-000000000001';
      const old = { ...emptyCheckpoint(), id, channel_values: { big: BIG, count: 1 }, channel_versions: { big: 1, count: 1 } };
      await store.collection('checkpoints', { indexes: ['thread_id', 'thread_ns'] }).put(['old', '', id].join(SEP), {
        thread_id: 'old',
        thread_ns: ['old', ''].join(SEP),
        checkpoint_ns: '',
        checkpoint_id: id,
        checkpoint: { type: 'json', text: JSON.stringify(old) },
        metadata: { type: 'json', text: JSON.stringify({ source: 'loop', step: 0 }) },
      });
      const read = await saver.getTuple(config('old'));
      assert.deepEqual(read?.checkpoint.channel_values, { big: BIG, count: 1 });
      const next = '1ef00000-0000-6000-8000-000000000002';
      await saver.put(
        { configurable: { thread_id: 'old', checkpoint_ns: '', checkpoint_id: id } },
        { ...old, id: next, channel_values: { big: BIG, count: 2 }, channel_versions: { big: 1, count: 2 } },
        {
          source: 'loop',
          step: 1,
          parents: {},
        } as never,
      );
      assert.deepEqual((await saver.getTuple(config('old')))?.checkpoint.channel_values, { big: BIG, count: 2 });
      assert.deepEqual(
        (await valuesOf(store, 'old')).map((v) => v.channel),
        ['big'],
        'the value the old checkpoint held in its text is stored for the new one',
      );
    });
  });
}
