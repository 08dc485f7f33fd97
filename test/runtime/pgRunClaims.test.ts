// The shared run queue's claims on a real PostgreSQL (src/backends/postgres/pgRunClaims.ts):
// oldest first per thread, one running run per thread, after_seconds respected, the claims
// of a replica whose session is gone taken over as a new attempt, and the claim query
// served by the runs' indexes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPgStore } from '../../src/backends/postgres/pgStore.ts';
import { PgCoordination } from '../../src/backends/postgres/pgCoordination.ts';
import { PgRunClaims } from '../../src/backends/postgres/pgRunClaims.ts';
import type { RunRecord } from '../../src/domain/agent/records.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { pendingRun } from '../support/runRecords.ts';

const run = pendingRun;
const start = (r: RunRecord): RunRecord => ({ ...r, status: 'running' });

test('claims: receipt order per thread, one running run per thread, after_seconds, take-over of a gone replica', async () => {
  const url = await freshDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  await a.ready();
  await b.ready();
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const claimsA = new PgRunClaims({ store, coordination: a, leaseMs: 60_000 });
  const claimsB = new PgRunClaims({ store, coordination: b, leaseMs: 60_000 });
  try {
    // runs belong to threads (a foreign key): their threads first
    const threads = store.collection<{ thread_id: string }>('threads');
    for (const thread_id of ['t1', 't2']) await threads.put(thread_id, { thread_id });
    await runs.put('r1', run('r1', 't1'));
    await runs.put('r2', run('r2', 't1'));
    await runs.put('r3', run('r3', 't2', { kwargs: { after_seconds: 60 } }));
    assert.equal((await claimsA.claim(start))?.run_id, 'r1');
    assert.equal((await runs.get('r1'))?.status, 'running');
    // r2 waits behind r1 on its thread; r3 waits for its after_seconds
    assert.equal(await claimsB.claim(start), null);
    const due = await claimsB.nextDue();
    assert.ok(due && due > Date.now() + 50_000 && due < Date.now() + 61_000);

    // r1 ends and its claim goes: r2 is next, on whichever replica asks
    await runs.put('r1', { ...(await runs.get('r1'))!, status: 'success' });
    await claimsA.release({ run_id: 'r1' } as RunRecord);
    assert.equal((await claimsB.claim(start))?.run_id, 'r2');
    assert.deepEqual(await claimsB.renew(['r2']), { lost: [], cancels: [] });
    await claimsA.requestCancel('r2', 'interrupt');
    assert.deepEqual((await claimsB.renew(['r2'])).cancels, [{ runId: 'r2', action: 'interrupt' }]);

    // B is gone (its session ends): A takes r2 over as attempt 2; nothing of A's is taken
    assert.deepEqual((await claimsA.recover((r) => ({ ...r, status: 'pending', attempt: r.attempt + 1 }))).abandoned, []);
    await b.close();
    const { abandoned: taken } = await claimsA.recover((r) => ({ ...r, status: 'pending', attempt: r.attempt + 1 }));
    assert.deepEqual(
      taken.map((r) => [r.run_id, r.status, r.attempt]),
      [['r2', 'pending', 2]],
    );
    assert.equal((await claimsA.claim(start))?.run_id, 'r2');
    assert.deepEqual((await claimsB.renew(['r2'])).lost, ['r2'], 'the gone replica would learn its claim was taken');

    // the claim query is answered from the runs table's indexes, not a scan of every run
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('SET LOCAL enable_seqscan = off');
      const sql = (claimsA as unknown as { candidateSql: string }).candidateSql.replace('FOR UPDATE OF r SKIP LOCKED', '');
      const plan = (await admin.query(`EXPLAIN ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(plan, /Index (Only )?Scan (using|on) agentplane_runs_/, plan);
      assert.doesNotMatch(plan, /Seq Scan on agentplane_runs/, plan);
      await admin.query('ROLLBACK');
    } finally {
      await admin.end();
    }
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
});

test('a replica is gone from its database even while a replica of the same id lives in another database of the server', async () => {
  const url = await freshDatabaseUrl();
  const elsewhere = await freshDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  // the same replica id in another database (another deployment sharing the server): its liveness lock is not b's
  const twin = new PgCoordination({ url: elsewhere });
  Object.defineProperty(twin, 'replicaId', { value: b.replicaId });
  await Promise.all([a.ready(), b.ready(), twin.ready()]);
  const claimsA = new PgRunClaims({ store, coordination: a, leaseMs: 60_000 });
  const claimsB = new PgRunClaims({ store, coordination: b, leaseMs: 60_000 });
  try {
    await store.collection<{ thread_id: string }>('threads').put('t1', { thread_id: 't1' });
    await store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] }).put('r1', run('r1', 't1'));
    assert.equal((await claimsB.claim(start))?.run_id, 'r1');
    await b.close();
    const { abandoned } = await claimsA.recover((r) => ({ ...r, status: 'pending', attempt: r.attempt + 1 }));
    assert.deepEqual(
      abandoned.map((r) => r.run_id),
      ['r1'],
      "b's claim is taken over at once, whatever holds a lock of its id in another database",
    );
  } finally {
    await Promise.all([a.close(), b.close(), twin.close()]);
    await store.close();
  }
});
