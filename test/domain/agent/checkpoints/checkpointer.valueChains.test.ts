// A channel value that extends its parent's (a list appended to) is stored as the text it adds,
// naming its parent's value as its base (channelChains.ts), on both stores. What LangGraph reads
// back is what its own MemorySaver answers for the same runs (history, a fork from an older
// checkpoint); a base stays while a tail names it (a run rolled back, a prune, the older run's
// checkpoints deleted, a thread copied then deleted); a chain is bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Annotation, MemorySaver, StateGraph, type BaseCheckpointSaver, type CheckpointTuple } from '@langchain/langgraph';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { CHAIN_MAX } from '../../../../src/domain/agent/checkpoints/channelChains.ts';
import type { Store } from '../../../../src/domain/ports/store.ts';
import { BACKENDS, openStore } from '../../../support/bothStores.ts';

/** What each step appends: large enough to be stored as a tail (one entry is over channelChains' 4,096 characters). */
const entry = (run: string, step: number, size = 20_000) => `${run} step ${step} `.padEnd(size, String(step % 10));

/** A graph that appends an entry (of `size` characters) to `log` at each of `steps` steps, a checkpoint per step. */
function appending(saver: BaseCheckpointSaver, steps = 6, size?: number) {
  const State = Annotation.Root({
    run: Annotation<string>,
    count: Annotation<number>,
    log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  });
  return new StateGraph(State)
    .addNode('step', (state) => ({ count: (state.count ?? 0) + 1, log: [entry(state.run, state.count ?? 0, size)] }))
    .addConditionalEdges('step', (state) => (state.count >= steps ? '__end__' : 'step'))
    .addEdge('__start__', 'step')
    .compile({ checkpointer: saver });
}

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
const start = (run: string) => ({ run, count: 0 });

/** What LangGraph reads of a thread's history, without what differs by saver (ids, times). */
async function history(saver: BaseCheckpointSaver, threadId: string): Promise<unknown[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list(config(threadId))) tuples.push(tuple);
  return tuples.map((t) => ({
    values: t.checkpoint.channel_values,
    versions: t.checkpoint.channel_versions,
    step: t.metadata?.step,
    writes: t.pendingWrites?.map(([, channel, value]) => [channel, value]),
  }));
}

interface StoredValue {
  channel: string;
  at: string;
  keep?: number;
  value: { text?: string };
}

const logValues = async (store: Store, threadId: string) =>
  (await store.collection<StoredValue>('checkpoint_values', { indexes: ['thread_id'] }).list({ where: { thread_id: threadId } })).filter(
    (v) => v.channel === 'log',
  );

const storedChars = (values: StoredValue[]) => values.reduce((sum, v) => sum + (v.value.text ?? '').length, 0);

/** The thread's newest `log`, as LangGraph reads it. */
const newestLog = async (saver: StoreCheckpointer, threadId: string) =>
  (await saver.getTuple(config(threadId)))?.checkpoint.channel_values.log as string[] | undefined;

for (const backend of BACKENDS) {
  describe(`a growing channel value is stored as what it adds, on the ${backend} store`, () => {
    it("a list appended to at each step is stored once, as tails, and reads back as LangGraph's MemorySaver answers", async () => {
      const store = await openStore(backend);
      const saver = await new StoreCheckpointer(new CollectionCheckpoints(store)).langGraphSaver();
      const reference = new MemorySaver();
      for (const s of [saver, reference]) await appending(s).invoke(start('a'), config('t1'));
      assert.deepEqual(await history(saver, 't1'), await history(reference, 't1'));
      const values = await logValues(store, 't1');
      assert.ok(values.filter((v) => v.keep !== undefined).length >= 4, 'the later versions stored as tails');
      // six entries of 20,000 characters: every version whole would be 1 + 2 + … + 6 of them
      const stored = storedChars(values);
      assert.ok(stored < 7 * 20_000, `the list's versions store ${stored} characters, for six entries`);
    });

    it('a fork from an older checkpoint reads its own values, and so does the branch it left', async () => {
      const store = await openStore(backend);
      const saver = await new StoreCheckpointer(new CollectionCheckpoints(store)).langGraphSaver();
      const reference = new MemorySaver();
      for (const s of [saver, reference]) {
        const graph = appending(s);
        await graph.invoke(start('a'), config('t1'));
        const states = [];
        for await (const state of graph.getStateHistory(config('t1'))) states.push(state);
        const older = states.find((state) => state.values.count === 3)!;
        // the fork appends to the older list: its values are tails of the older checkpoint's, not of the newest
        const forked = await graph.updateState(older.config, { run: 'fork', log: [entry('fork', 99)] }, 'step');
        await graph.invoke(null, forked);
      }
      assert.deepEqual(await history(saver, 't1'), await history(reference, 't1'));
    });

    it('a base stays while a tail names it: a rolled-back run, a prune, the older run deleted, a copy of the thread', async () => {
      const store = await openStore(backend);
      const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
      const lg = await saver.langGraphSaver();
      const graph = appending(lg, 3);
      await graph.invoke(start('a'), { configurable: { thread_id: 't1', run_id: 'run-1' } });
      const first = await newestLog(saver, 't1');
      await graph.invoke(start('b'), { configurable: { thread_id: 't1', run_id: 'run-2' } });
      const second = await newestLog(saver, 't1');
      assert.equal(second?.length, 6);
      assert.ok((await logValues(store, 't1')).some((v) => v.keep !== undefined));

      const copied = await history(lg, 't1');
      await saver.copyThread('t1', 't2');
      await saver.deleteRun('t1', 'run-2');
      assert.deepEqual(await newestLog(saver, 't1'), first, 'rolled back: the first run’s list');
      await graph.invoke(start('c'), { configurable: { thread_id: 't1', run_id: 'run-3' } });
      const third = await newestLog(saver, 't1');
      assert.deepEqual(third, [...first!, entry('c', 0), entry('c', 1), entry('c', 2)]);

      // the first run's checkpoints go; the third run's tails name their values
      await saver.deleteRun('t1', 'run-1');
      assert.deepEqual(await newestLog(saver, 't1'), third);
      await saver.prune('t1');
      assert.equal(await saver.count('t1'), 1);
      assert.deepEqual(await newestLog(saver, 't1'), third, 'the one checkpoint kept reads the values its chain names');
      assert.ok(storedChars(await logValues(store, 't1')) < 7 * 20_000, 'what no checkpoint needs went');

      await saver.deleteThread('t1');
      assert.deepEqual(await logValues(store, 't1'), []);
      assert.deepEqual(await newestLog(saver, 't2'), second, 'the copy reads its own chain');
      assert.deepEqual(await history(lg, 't2'), copied);
    });

    it(`a chain holds at most ${CHAIN_MAX} values: then the value is stored whole again`, async () => {
      const store = await openStore(backend);
      const saver = await new StoreCheckpointer(new CollectionCheckpoints(store)).langGraphSaver();
      const steps = CHAIN_MAX + 6;
      // entries just over the size a tail needs: 70 steps of 20,000 characters cost ~15 s on PostgreSQL
      const size = 4_200;
      const graph = appending(saver, steps, size);
      await graph.invoke(start('a'), { configurable: { thread_id: 't1' }, recursionLimit: steps + 5 });
      const values = await logValues(store, 't1');
      const whole = values.filter((v) => v.keep === undefined);
      assert.ok(whole.length >= 2, `${whole.length} whole values among ${values.length}`);
      const read = (await saver.getTuple(config('t1')))?.checkpoint.channel_values.log as string[];
      assert.deepEqual(
        read,
        Array.from({ length: steps }, (_, i) => entry('a', i, size)),
      );
    });
  });
}
