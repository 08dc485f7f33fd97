// What a request writes of a run (runWrites.ts), over the in-process claims and a store in
// memory, with a scripted executor: a run stored pending on a thread it creates or finds, and
// a run deleted — finished, in flight (rolled back first), or asked for on the wrong thread.
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Assistant } from '../../../../generated/agent-server/types.gen.ts';
import { InProcessRunClaims } from '../../../../src/adapters/run-storage/inProcessRunClaims.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { CollectionThreads } from '../../../../src/adapters/embedded/collectionThreads.ts';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { PlainStateStore } from '../../../../src/domain/agent/checkpoints/plainState.ts';
import { CollectionPlainCheckpoints } from '../../../../src/adapters/embedded/collectionPlainCheckpoints.ts';
import type { RunRecord, ThreadRecord } from '../../../../src/domain/agent/records.ts';
import type { RunExecutor } from '../../../../src/domain/agent/graphs/runContext.ts';
import { RunEngine } from '../../../../src/domain/agent/runs/runEngine.ts';
import { deleteRun, enqueueRun } from '../../../../src/domain/agent/runs/runWrites.ts';
import type { Logger } from '../../../../src/domain/ports/logger.ts';

const assistant = { assistant_id: 'a1', graph_id: 'g', config: {}, context: {}, metadata: {} } as unknown as Assistant;
const done = { values: {}, next: [], interrupts: {}, ops: [] };
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, routine() {}, child: () => quiet, enabled: () => false } as unknown as Logger;

async function writes(execute: RunExecutor) {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const threads = store.collection<ThreadRecord>('threads', { indexes: ['status'] });
  const eventLog = new InMemoryRunEventLog();
  const claims = new InProcessRunClaims(runs, store, eventLog);
  const engine = new RunEngine({
    records: new CollectionRunStore(store),
    eventLog,
    claims,
    leaseMs: 30_000,
    plain: new PlainStateStore(new CollectionPlainCheckpoints(store)),
    checkpointer: new StoreCheckpointer(new CollectionCheckpoints(store)),
    // these graphs keep no state a run's end would store on its thread
    threadValues: async (thread) => thread.values ?? null,
    execute,
    log: quiet,
    maxConcurrentRuns: 2,
  });
  await engine.recover();
  engine.start();
  return { runs, threads, eventLog, engine, deps: { runs: new CollectionRunStore(store), threads: new CollectionThreads(store), eventLog, claims, engine } };
}

describe('run writes', () => {
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  it('a run on a thread that does not exist creates it busy, with the run’s metadata and the owner', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const w = await writes(async () => (await held, done));
    stops.push(() => w.engine.stop());
    const run = await enqueueRun(w.deps, 't1', assistant, { assistant_id: 'a1', metadata: { team: 'x' } }, { owner: 'tenant-a', temporary: true });
    const thread = await w.threads.get('t1');
    assert.equal(thread?.status, 'busy');
    assert.equal(thread?.owner, 'tenant-a');
    assert.deepEqual(thread?.metadata, { graph_id: 'g', assistant_id: 'a1', team: 'x' });
    const stored = await w.runs.get(run.run_id);
    assert.equal(stored?.owner, 'tenant-a');
    assert.equal(stored?.attempt, 1);
    assert.equal(stored?.kwargs.temporary, true);
    assert.equal(await w.eventLog.ownerOf(run.run_id), 'tenant-a');
    release();
    await w.eventLog.ended(run.run_id);
  });

  it('deletes a run only on its own thread; a finished run’s record and log go', async () => {
    const w = await writes(async () => done);
    stops.push(() => w.engine.stop());
    const run = await enqueueRun(w.deps, 't1', assistant, { assistant_id: 'a1' }, { owner: '' });
    await w.eventLog.ended(run.run_id);
    const wrongThread = await deleteRun(w.deps, 't2', run.run_id);
    assert.equal(wrongThread.ok, false);
    assert.ok(await w.runs.get(run.run_id), 'a delete on another thread changes nothing');
    assert.equal((await deleteRun(w.deps, 't1', run.run_id)).ok, true);
    assert.equal(await w.runs.get(run.run_id), undefined);
    assert.equal(await w.eventLog.has(run.run_id), false);
    assert.equal((await deleteRun(w.deps, 't1', run.run_id)).ok, false);
  });

  it('a run in flight is rolled back and waited for before its record is deleted', async () => {
    let began!: () => void;
    const executing = new Promise<void>((resolve) => (began = resolve));
    let stopped = false;
    const w = await writes(
      (_run, signal) =>
        new Promise((_, reject) => {
          began();
          signal.addEventListener('abort', () => ((stopped = true), reject(new Error('aborted'))), { once: true });
        }),
    );
    stops.push(() => w.engine.stop());
    const run = await enqueueRun(w.deps, 't1', assistant, { assistant_id: 'a1' }, { owner: '' });
    await executing;
    assert.equal((await deleteRun(w.deps, 't1', run.run_id)).ok, true);
    assert.ok(stopped, 'the graph was stopped before the delete answered');
    assert.equal(await w.runs.get(run.run_id), undefined);
    assert.equal((await w.threads.get('t1'))?.status, 'idle');
  });
});
