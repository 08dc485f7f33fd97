// What every RunStore answers, whichever backend keeps the runs: the embedded store's
// collections (test/adapters/run-storage/collectionRunStore.test.ts) and PostgreSQL's tables
// with the lists, summaries and first reads in SQL (test/adapters/run-storage/pgRunStore.test.ts)
// run this one body. Runs are stored with their thread (on PostgreSQL a run's thread must exist).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { emptyCheckpoint } from '@langchain/langgraph';
import { newThread, type RunRecord } from '../../src/domain/agent/records.ts';
import { uuid7 } from '../../src/domain/agent/ids.ts';
import { StoreCheckpointer } from '../../src/domain/agent/checkpoints/checkpointer.ts';
import { PlainStateStore } from '../../src/domain/agent/checkpoints/plainState.ts';
import type { RunStore } from '../../src/domain/ports/runStore.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { CollectionCheckpoints } from '../../src/adapters/embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../../src/adapters/embedded/collectionPlainCheckpoints.ts';
import { pendingRun } from './runRecords.ts';
import { thread } from './threadsRepositoryContract.ts';

export interface OpenedRuns {
  runs: RunStore;
  /** The store the runs are kept in: a thread's checkpoints are written there for its first reads. */
  store: Store;
}

/** A run of `owner` on `threadId`; ids sort in the order runs are created. */
function run(id: string, threadId: string, owner: string, status: RunRecord['status'] = 'pending'): RunRecord {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    run_id: id,
    thread_id: threadId,
    ...(owner ? { owner } : {}),
    assistant_id: 'a1',
    graph_id: 'g',
    status,
    created_at: at,
    updated_at: at,
    metadata: {},
    kwargs: {},
    multitask_strategy: 'enqueue',
    attempt: 1,
  } as RunRecord;
}

const ids = (runs: RunRecord[]) => runs.map((r) => r.run_id);

/** The runs stored with their threads, in one write each (as a request stores a run). */
async function stored({ runs }: OpenedRuns, ...records: RunRecord[]): Promise<void> {
  for (const r of records) {
    const t = (await runs.thread(r.thread_id)) ?? thread(r.thread_id, r.owner ?? '', 0);
    await runs.write([runs.putThread(t), runs.putRun(r)]);
  }
}

/** A thread with a pending, a running and a finished run, written together (as the run engine writes). */
async function seeded(runs: RunStore) {
  const threadId = randomUUID();
  const [pending, running, done] = ['pending', 'running', 'success'].map((status) =>
    pendingRun(uuid7(), threadId, { status: status as 'pending' | 'running' | 'success' }),
  );
  await runs.write([runs.putThread(newThread(threadId, {}, '')), runs.putRun(pending), runs.putRun(running), runs.putRun(done)]);
  return { threadId, pending, running, done };
}

const checkpointId = (n: number) => `1ef00000-0000-6000-8000-${String(n).padStart(12, '0')}`;

export function runStoreContract(open: () => Promise<OpenedRuns>): void {
  it('reads a run by its id once it is written through its write operation', async () => {
    const opened = await open();
    await stored(opened, run('r1', 't1', 'tenant-a'));
    assert.equal((await opened.runs.get('r1'))?.owner, 'tenant-a');
    assert.equal(await opened.runs.get('missing'), undefined);
  });

  it("lists a thread's runs of every owner in receipt order, and no other thread's", async () => {
    const opened = await open();
    // stored out of order: the list is by run id, whatever order they were written in
    await stored(opened, run('r3', 't1', 'tenant-a'), run('r1', 't1', 'tenant-a'), run('r2', 't1', 'tenant-b'), run('r9', 't2', 'tenant-a'));
    assert.deepEqual(ids(await opened.runs.onThread('t1')), ['r1', 'r2', 'r3']);
    assert.deepEqual(ids(await opened.runs.onThread('none')), []);
    // their ids alone, in the same order (the protocol's shared listings, issue 87)
    assert.deepEqual(await opened.runs.idsOnThread('t1'), ['r1', 'r2', 'r3']);
    assert.deepEqual(await opened.runs.idsOnThread('none'), []);
  });

  it("finds the owner's first run on a thread, in receipt order, that a test accepts", async () => {
    const opened = await open();
    const marked = (r: RunRecord) => ({ ...r, kwargs: { marked: true } });
    // stored out of order; another owner's marked run comes first by id
    await stored(
      opened,
      marked(run('r4', 't1', 'tenant-a')),
      run('r2', 't1', 'tenant-a'),
      marked(run('r1', 't1', 'tenant-b')),
      marked(run('r3', 't1', 'tenant-a')),
      marked(run('r0', 't2', 'tenant-a')),
    );
    const isMarked = (r: RunRecord) => r.kwargs.marked === true;
    assert.equal((await opened.runs.firstOnThread('t1', 'tenant-a', isMarked))?.run_id, 'r3');
    assert.equal((await opened.runs.firstOnThread('t1', 'tenant-a', () => true))?.run_id, 'r2');
    assert.equal((await opened.runs.firstOnThread('t1', 'tenant-b', isMarked))?.run_id, 'r1');
    assert.equal(await opened.runs.firstOnThread('t1', 'tenant-c', () => true), undefined);
    assert.equal(await opened.runs.firstOnThread('t1', 'tenant-a', () => false), undefined);
  });

  it('deletes a run, and deleting one that is gone changes nothing', async () => {
    const opened = await open();
    await stored(opened, run('r1', 't1', 'tenant-a'), run('r2', 't1', 'tenant-a'));
    await opened.runs.delete('r1');
    assert.equal(await opened.runs.get('r1'), undefined);
    await opened.runs.delete('r1');
    assert.deepEqual(ids(await opened.runs.onThread('t1')), ['r2']);
    assert.deepEqual(await opened.runs.idsOnThread('t1'), ['r2']);
  });

  it("pages a thread's runs newest first, by status, and lists an owner's runs in these statuses", async () => {
    const opened = await open();
    await stored(opened, run('r1', 't1', 'tenant-a', 'success'), run('r2', 't1', 'tenant-a', 'running'), run('r3', 't1', 'tenant-a', 'pending'));
    await stored(opened, run('r4', 't2', 'tenant-a', 'pending'), run('r5', 't3', 'tenant-b', 'pending'));
    assert.deepEqual(ids(await opened.runs.ofThread('t1', { offset: 0, limit: 10 })), ['r3', 'r2', 'r1']);
    assert.deepEqual(ids(await opened.runs.ofThread('t1', { offset: 1, limit: 1 })), ['r2']);
    assert.deepEqual(ids(await opened.runs.ofThread('t1', { status: 'pending', offset: 0, limit: 10 })), ['r3']);
    assert.deepEqual(ids(await opened.runs.withStatus('tenant-a', ['pending', 'running'])).sort(), ['r2', 'r3', 'r4']);
    assert.deepEqual(ids(await opened.runs.withStatus('tenant-a', ['pending'], 't1')), ['r3']);
    assert.deepEqual(ids(await opened.runs.withStatus('tenant-c', ['pending'])), []);
    assert.equal(await opened.runs.countInFlight('tenant-a'), 3);
    assert.equal(await opened.runs.countInFlight('tenant-c'), 0);
  });

  it("reads a thread's runs by status, and each run's and thread's record by id", async () => {
    const { runs } = await open();
    const { threadId, pending, running, done } = await seeded(runs);
    const sorted = (list: { run_id: string }[]) => list.map((r) => r.run_id).sort();
    assert.deepEqual(sorted(await runs.runsOfThread(threadId, 'pending')), [pending.run_id]);
    assert.deepEqual(sorted(await runs.runsOfThread(threadId, 'running')), [running.run_id]);
    assert.deepEqual(sorted(await runs.runsOfThread(threadId)), sorted([pending, running, done]));
    assert.equal((await runs.get(done.run_id))?.status, 'success');
    assert.equal((await runs.thread(threadId))?.thread_id, threadId);
    assert.equal(await runs.get(uuid7()), undefined);
    assert.equal(await runs.thread(randomUUID()), undefined);
  });

  it('withdraws a run only while it is pending', async () => {
    const { runs } = await open();
    const { pending, running } = await seeded(runs);
    assert.equal(await runs.withdraw(pending.run_id, { ...pending, status: 'interrupted' }), true);
    assert.equal((await runs.get(pending.run_id))?.status, 'interrupted');
    assert.equal(await runs.withdraw(pending.run_id, { ...pending, status: 'interrupted' }), false, 'no longer pending');
    assert.equal(await runs.withdraw(running.run_id, { ...running, status: 'interrupted' }), false);
    assert.equal((await runs.get(running.run_id))?.status, 'running', 'a running run is left as it is');
    assert.equal(await runs.withdraw(uuid7(), { ...pending, status: 'interrupted' }), false, 'none: nothing withdrawn');
  });

  it('changes a thread in place, and deletes runs and threads in one write', async () => {
    const { runs } = await open();
    const { threadId, pending, running, done } = await seeded(runs);
    await runs.updateThread(threadId, (t) => ({ ...t, status: 'error' }));
    assert.equal((await runs.thread(threadId))?.status, 'error');
    await runs.updateThread(randomUUID(), (t) => ({ ...t, status: 'error' }));
    await runs.write([...[pending, running, done].map((r) => runs.deleteRun(r.run_id)), runs.deleteThread(threadId)]);
    assert.deepEqual(await runs.runsOfThread(threadId), []);
    assert.equal(await runs.thread(threadId), undefined);
  });

  it('reads first what a run reads of its thread: the plain head, and for LangGraph the newest root checkpoint; null for what the thread lacks', async () => {
    const { runs, store } = await open();
    const empty = await runs.firstReads('empty', 'langgraph');
    assert.equal(empty.plainHead, null);
    assert.equal(empty.newestCheckpoint, null);
    assert.equal((await runs.firstReads('empty', 'plain')).plainHead, null);

    const threadId = 't-reads';
    const plain = new PlainStateStore(new CollectionPlainCheckpoints(store));
    const { ops } = plain.commitOps(
      threadId,
      undefined,
      { messages: [{ type: 'human', content: 'one', id: 'm-one' }] },
      {
        checkpointId: checkpointId(1),
        createdAt: new Date().toISOString(),
        metadata: {},
      },
    );
    await store.write(ops);
    const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
    // the lowest id written last: the newest is still the highest id
    for (const n of [3, 5, 4])
      await saver.put(
        { configurable: { thread_id: threadId, checkpoint_ns: '' } },
        { ...emptyCheckpoint(), id: checkpointId(n), channel_values: { n }, channel_versions: { n } },
        { source: 'loop', step: n, parents: {} } as never,
      );
    const reads = await runs.firstReads(threadId, 'langgraph');
    assert.deepEqual(
      reads.plainHead?.added.map((m) => m.content),
      ['one'],
    );
    assert.equal(reads.newestCheckpoint?.record.checkpoint_id, checkpointId(5));
    assert.deepEqual((await runs.firstReads(threadId, 'plain')).plainHead, reads.plainHead);
  });
}
