// What every RunsRepository answers, whichever backend keeps the runs: the embedded store's
// collection (test/adapters/embedded/collectionRuns.test.ts) and PostgreSQL's table with its
// lists in SQL (test/adapters/postgres/pgRuns.test.ts) run this one body. Runs are stored
// with their thread (on PostgreSQL a run's thread must exist).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunRecord } from '../../src/domain/agent/records.ts';
import type { RunsRepository } from '../../src/domain/ports/runsRepository.ts';
import type { ThreadsRepository } from '../../src/domain/ports/threadsRepository.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { thread } from './threadsRepositoryContract.ts';

export interface OpenedRuns {
  runs: RunsRepository;
  threads: ThreadsRepository;
  store: Pick<Store, 'write'>;
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
async function stored({ runs, threads, store }: OpenedRuns, ...records: RunRecord[]): Promise<void> {
  for (const r of records) {
    const t = (await threads.get(r.thread_id)) ?? thread(r.thread_id, r.owner ?? '', 0);
    await store.write([threads.putOp(t), runs.putOp(r)]);
  }
}

export function runsRepositoryContract(open: () => Promise<OpenedRuns>): void {
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
  });

  it('deletes a run, and deleting one that is gone changes nothing', async () => {
    const opened = await open();
    await stored(opened, run('r1', 't1', 'tenant-a'), run('r2', 't1', 'tenant-a'));
    await opened.runs.delete('r1');
    assert.equal(await opened.runs.get('r1'), undefined);
    await opened.runs.delete('r1');
    assert.deepEqual(ids(await opened.runs.onThread('t1')), ['r2']);
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
  });
}
