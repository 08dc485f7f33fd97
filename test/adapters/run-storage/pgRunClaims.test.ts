// The shared run queue's claims on a real PostgreSQL (src/adapters/run-storage/pgRunClaims.ts):
// oldest first per thread, one running run per thread, after_seconds respected, the claims
// of a replica whose session is gone taken over as a new attempt, the claim query served by
// the runs' indexes, and a claim taken over that writes nothing: not the run's end, not its
// thread, not the release of the new attempt's claim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgCoordination } from '../../../src/adapters/postgres/pgCoordination.ts';
import { CANDIDATE_SQL, NEXT_DUE_SQL, PgRunClaims } from '../../../src/adapters/run-storage/pgRunClaims.ts';
import { PgRunEventLog } from '../../../src/adapters/run-storage/pgRunEventLog.ts';
import type { RunRecord, ThreadRecord } from '../../../src/domain/agent/records.ts';
import { freshDatabaseUrl, migratedDatabaseUrl, withSchema } from '../../support/postgres.ts';
import { pendingRun } from '../../support/runRecords.ts';
import type { Claim } from '../../../src/domain/ports/runClaims.ts';

const run = pendingRun;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = { status: 'running' as const, updated_at: new Date().toISOString() };
/** The one run a claim takes now (null: none). */
const claimOne = async (claims: PgRunClaims): Promise<Claim | null> => (await claims.claim(started, 1)).claims[0] ?? null;

test('claims: receipt order per thread, one running run per thread, after_seconds, take-over of a gone replica', async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  await a.ready();
  await b.ready();
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const claimsA = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events: new PgRunEventLog(store, a), warn: () => {} });
  const claimsB = new PgRunClaims({ store, coordination: b, leaseMs: 60_000, events: new PgRunEventLog(store, b), warn: () => {} });
  try {
    // runs belong to threads (a foreign key): their threads first
    const threads = store.collection<{ thread_id: string }>('threads');
    for (const thread_id of ['t1', 't2']) await threads.put(thread_id, { thread_id });
    // a client's keys in an order of their own, kept as sent through the claim
    const sent = run('r1', 't1', { metadata: { z: 1, a: { y: 2, b: 3 } } });
    await runs.put('r1', sent);
    await runs.put('r2', run('r2', 't1'));
    await runs.put('r3', run('r3', 't2', { kwargs: { after_seconds: 60 } }));
    const r1 = (await claimOne(claimsA))!;
    assert.equal(r1.run.run_id, 'r1');
    // the claim changes the status and updated_at in the stored text, nothing else, every key in its place
    const claimedAs = { ...sent, status: 'running', updated_at: started.updated_at };
    for (const seen of [r1.run, await runs.get('r1')]) {
      assert.deepEqual(seen, claimedAs);
      assert.equal(JSON.stringify(seen), JSON.stringify(claimedAs));
    }
    assert.equal((await runs.get('r1'))?.status, 'running');
    // r2 waits behind r1 on its thread; r3 waits for its after_seconds
    const none = await claimsB.claim(started, 1);
    assert.deepEqual(none.claims, []);
    const { due } = none;
    assert.ok(due && due > Date.now() + 50_000 && due < Date.now() + 61_000);

    // r1 ends and its claim goes: r2 is next, on whichever replica asks
    assert.equal(await claimsA.recordEnd(r1, [{ collection: 'runs', id: 'r1', value: { ...r1.run, status: 'success' } }]), true);
    await claimsA.release(r1, { ...r1.run, status: 'success' });
    const r2 = (await claimOne(claimsB))!;
    assert.equal(r2.run.run_id, 'r2');
    assert.deepEqual(await claimsB.renew([r2]), { lost: [], cancels: [] });
    await claimsA.requestCancel('r2', 'interrupt');
    assert.deepEqual((await claimsB.renew([r2])).cancels, [{ runId: 'r2', action: 'interrupt' }]);

    // B is gone (its session ends): A takes r2 over as attempt 2; nothing of A's is taken
    assert.deepEqual((await claimsA.recover((r) => ({ ...r, status: 'pending', attempt: r.attempt + 1 }))).abandoned, []);
    await b.close();
    const { abandoned: taken } = await claimsA.recover((r) => ({ ...r, status: 'pending', attempt: r.attempt + 1 }));
    assert.deepEqual(
      taken.map((r) => [r.run_id, r.status, r.attempt]),
      [['r2', 'pending', 2]],
    );
    assert.equal((await claimOne(claimsA))?.run.run_id, 'r2');
    assert.deepEqual((await claimsB.renew([r2])).lost, ['r2'], 'the gone replica would learn its claim was taken');

    // the claim query is answered from the runs table's indexes, not a scan of every run
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('SET LOCAL enable_seqscan = off');
      const sql = CANDIDATE_SQL.replace('FOR UPDATE OF r SKIP LOCKED', '');
      const plan = (await admin.query(`EXPLAIN ${sql}`, [[], 1, 'replica', 9])).rows.map((r) => r['QUERY PLAN']).join('\n');
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

/** Two replicas' claims on a fresh database, and a way to queue an owner's runs, each on a thread of its own (`r<name><i>` on `<name><i>`). */
async function twoReplicas() {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  await Promise.all([a.ready(), b.ready()]);
  const claimsA = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events: new PgRunEventLog(store, a), warn: () => {} });
  const claimsB = new PgRunClaims({ store, coordination: b, leaseMs: 60_000, events: new PgRunEventLog(store, b), warn: () => {} });
  const threads = store.collection<{ thread_id: string; owner: string }>('threads');
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  return {
    claimsA,
    claimsB,
    async queue(owner: string, name: string, count: number) {
      for (let i = 0; i < count; i++) {
        await threads.put(`${name}${i}`, { thread_id: `${name}${i}`, owner });
        await runs.put(`r${name}${i}`, run(`r${name}${i}`, `${name}${i}`, { owner }));
      }
    },
    async close() {
      await Promise.all([a.close(), b.close()]);
      await store.close();
    },
  };
}

const ids = (claims: Claim[]) => claims.map((c) => c.run.run_id).sort();

test("slots are shared fairly between owners: another owner's run goes before the rest of a long queue, on any replica", async () => {
  const { claimsA, claimsB, queue, close } = await twoReplicas();
  try {
    // tenant A's five runs (five threads) queued before tenant B's two
    await queue('tenant-a', 'a', 5);
    await queue('tenant-b', 'b', 2);
    assert.deepEqual(ids((await claimsA.claim(started, 2)).claims), ['ra0', 'rb0'], 'one slot each');
    assert.equal((await claimOne(claimsB))?.run.run_id, 'ra1', 'even: the oldest');
    assert.equal((await claimOne(claimsA))?.run.run_id, 'rb1', 'b has fewer running, whichever replica claims');
    assert.deepEqual(ids((await claimsB.claim(started, 5)).claims), ['ra2', 'ra3', 'ra4']);
  } finally {
    await close();
  }
});

test("an owner's runs hold at most its share of each replica's slots; another owner's run is claimed past them; the shared space is not capped", async () => {
  const { claimsA, claimsB, queue, close } = await twoReplicas();
  try {
    await queue('tenant-a', 'a', 6);
    const perOwner = 2;
    assert.deepEqual(ids((await claimsA.claim(started, 5, undefined, perOwner)).claims), ['ra0', 'ra1'], "A's share of this replica's slots");
    assert.deepEqual((await claimsA.claim(started, 5, undefined, perOwner)).claims, [], 'A holds its share here');
    // each replica's slots are its own: another replica takes its share of A's
    assert.deepEqual(ids((await claimsB.claim(started, 5, undefined, perOwner)).claims), ['ra2', 'ra3']);
    await queue('tenant-b', 'b', 1);
    assert.deepEqual(ids((await claimsA.claim(started, 5, undefined, perOwner)).claims), ['rb0'], "B's run, behind A's queue, takes a slot A may not");
    await queue('', 's', 4);
    assert.deepEqual(ids((await claimsA.claim(started, 5, undefined, perOwner)).claims), ['rs0', 'rs1', 'rs2', 'rs3'], 'the shared space is not capped');
  } finally {
    await close();
  }
});

test('a replica is gone from its database even while a replica of the same id lives in another database of the server', async () => {
  const url = await migratedDatabaseUrl();
  const elsewhere = await freshDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  // the same replica id in another database (another deployment sharing the server): its liveness lock is not b's
  const twin = new PgCoordination({ url: elsewhere });
  Object.defineProperty(twin, 'replicaId', { value: b.replicaId });
  await Promise.all([a.ready(), b.ready(), twin.ready()]);
  const claimsA = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events: new PgRunEventLog(store, a), warn: () => {} });
  const claimsB = new PgRunClaims({ store, coordination: b, leaseMs: 60_000, events: new PgRunEventLog(store, b), warn: () => {} });
  try {
    await store.collection<{ thread_id: string }>('threads').put('t1', { thread_id: 't1' });
    await store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] }).put('r1', run('r1', 't1'));
    assert.equal((await claimOne(claimsB))?.run.run_id, 'r1');
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

test("a claim whose lease ran out writes nothing once the run is claimed again: not its end, not its thread, not the new claim's release", async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  await Promise.all([a.ready(), b.ready()]);
  // a lease of 300 ms: held 500 ms after the last renewal (runLease.ts)
  const claimsA = new PgRunClaims({ store, coordination: a, leaseMs: 300, events: new PgRunEventLog(store, a), warn: () => {} });
  const claimsB = new PgRunClaims({ store, coordination: b, leaseMs: 300, events: new PgRunEventLog(store, b), warn: () => {} });
  const again = (r: RunRecord): RunRecord => ({ ...r, status: 'pending', attempt: r.attempt + 1 });
  try {
    const threads = store.collection<ThreadRecord>('threads');
    const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    const busy = { thread_id: 't1', status: 'busy' } as ThreadRecord;
    await threads.put('t1', busy);
    await runs.put('r1', run('r1', 't1'));
    const stale = (await claimOne(claimsA))!;
    // A cannot renew (the database away, for A): the lease runs out and B takes the run over, then claims it again
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.deepEqual(
      (await claimsB.recover(again)).abandoned.map((r) => [r.run_id, r.attempt]),
      [['r1', 2]],
    );
    const current = (await claimOne(claimsB))!;
    assert.equal(current.run.attempt, 2);

    // what A wrote had it not been fenced: the run's success and its thread idle
    const ended = [
      { collection: 'runs', id: 'r1', value: { ...stale.run, status: 'success' } },
      { collection: 'threads', id: 't1', value: { ...busy, status: 'idle' } },
    ];
    assert.equal(await claimsA.recordEnd(stale, ended), false, 'nothing written through a claim taken over');
    await claimsA.release(stale, stale.run);
    assert.deepEqual(
      { status: (await runs.get('r1'))?.status, attempt: (await runs.get('r1'))?.attempt, thread: (await threads.get('t1'))?.status },
      { status: 'running', attempt: 2, thread: 'busy' },
    );
    const claims = await store.query<{ replica: string }>('SELECT replica FROM agentplane_run_claims WHERE run_id = $1', ['r1']);
    assert.deepEqual(
      claims.rows.map((r) => r.replica),
      [b.replicaId],
      "the new attempt's claim stays",
    );
    assert.deepEqual((await claimsA.renew([stale])).lost, ['r1']);

    // the same replica claiming the run again gets a claim of its own: the old one still writes nothing
    assert.equal(await claimsB.recordEnd(current, [{ collection: 'runs', id: 'r1', value: again(current.run) }]), true);
    await claimsB.release(current, again(current.run));
    const third = (await claimOne(claimsB))!;
    assert.equal(third.run.attempt, 3);
    assert.equal(await claimsB.recordEnd(current, ended), false, "an earlier claim of this replica's");
    await claimsB.release(current, current.run);
    assert.equal((await store.query('SELECT 1 FROM agentplane_run_claims WHERE run_id = $1', ['r1'])).rowCount, 1);
    assert.equal(await claimsB.recordEnd(third, ended), true, 'the holder writes');
    assert.equal((await runs.get('r1'))?.status, 'success');
  } finally {
    await Promise.all([a.close(), b.close()]);
    await store.close();
  }
});

test("a claim looks at each thread's first pending run, not at every pending run behind it", async () => {
  await withSchema(async (admin) => {
    // 4 threads with 100 pending runs each: the queue a busy tenant leaves behind
    await admin.query(
      `INSERT INTO agentplane_threads (thread_id, owner, status, created_at, updated_at, metadata, doc)
         SELECT 't' || i, 'o', 'busy', now(), now(), '{}', '{}' FROM generate_series(1, 4) i`,
    );
    await admin.query(
      `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc)
         SELECT 'r' || t || '-' || k, 't' || t, 'o', 'pending', now() - interval '1 second', 0, '{}' FROM generate_series(1, 100) k, generate_series(1, 4) t ORDER BY k, t`,
    );
    await admin.query('ANALYZE agentplane_runs');
    const sql = CANDIDATE_SQL.replace('FOR UPDATE OF r SKIP LOCKED', '');
    const { rows: taken } = await admin.query<{ run_id: string }>(sql, [[], 10, 'replica', 9]);
    assert.deepEqual(taken.map((r) => r.run_id).sort(), ['r1-1', 'r2-1', 'r3-1', 'r4-1']);
    const plan = (await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, [[], 10, 'replica', 9])).rows[0]['QUERY PLAN'] as [
      { Plan: { 'Shared Hit Blocks': number } },
    ];
    // the pending runs' index and heap pages once, and a few per thread; a look for an
    // earlier pending run per pending run read 1,211 pages here
    assert.ok(plan[0].Plan['Shared Hit Blocks'] < 100, `pages read: ${plan[0].Plan['Shared Hit Blocks']}`);
  });
});

test('a claim counts the runs running by their claims, not by every run that was ever running', async () => {
  await withSchema(async (admin) => {
    // 400 runs that ran and succeeded since the last vacuum (each left an entry for its
    // running version in the status index), one still running with its claim, one pending
    await admin.query('ALTER TABLE agentplane_runs SET (autovacuum_enabled = false)');
    await admin.query(
      `INSERT INTO agentplane_threads (thread_id, owner, status, created_at, updated_at, metadata, doc)
         SELECT 't' || i, 'o', 'busy', now(), now(), '{}', '{}' FROM generate_series(1, 20) i`,
    );
    await admin.query(
      `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc)
         SELECT 'r' || t || '-' || k, 't' || t, 'o', 'running', now() - interval '1 second', 0, json_build_object('pad', repeat('x', 1500))
           FROM generate_series(1, 20) k, generate_series(1, 20) t ORDER BY k, t`,
    );
    await admin.query(`UPDATE agentplane_runs SET status = 'success'`);
    await admin.query(`UPDATE agentplane_runs SET status = 'running' WHERE run_id = 'r1-20'`);
    await admin.query(
      `INSERT INTO agentplane_run_claims (run_id, thread_id, replica, lease_until, token) VALUES ('r1-20', 't1', 'x', now() + interval '1 minute', 'k')`,
    );
    await admin.query(
      `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc) VALUES ('next', 't2', 'o', 'pending', now(), 0, '{}')`,
    );
    // and the claims those 400 runs held, gone: the claims' table as a busy queue leaves it
    // between vacuums (its statistics then tell of hundreds of claims)
    await admin.query(
      `INSERT INTO agentplane_run_claims (run_id, thread_id, replica, lease_until, token)
         SELECT 'gone-' || i, 'gone-' || i, 'x', now(), 'k' FROM generate_series(1, 400) i`,
    );
    await admin.query('ANALYZE agentplane_runs, agentplane_run_claims');
    await admin.query(`DELETE FROM agentplane_run_claims WHERE run_id LIKE 'gone-%'`);
    const sql = CANDIDATE_SQL.replace('FOR UPDATE OF r SKIP LOCKED', '');
    const plan = (await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, [[], 10, 'replica', 9])).rows[0]['QUERY PLAN'] as [
      { Plan: { 'Shared Hit Blocks': number } },
    ];
    // the first look after those runs (a bitmap scan, as the claim's plan had it in the
    // bench, reads them at every look): the claims' pages and the running run's (~11);
    // counted from the status index, every page that held a running version (~90 here); as a
    // join of the claims and the runs, the whole runs table (~40)
    assert.ok(plan[0].Plan['Shared Hit Blocks'] < 30, `pages read: ${plan[0].Plan['Shared Hit Blocks']}`);
    const { rows: taken } = await admin.query<{ run_id: string }>(sql, [[], 10, 'replica', 9]);
    assert.deepEqual(
      taken.map((r) => r.run_id),
      ['next'],
    );
  });
});

/** The pages a statement reads (EXPLAIN's shared hits and reads), executed with `params`. */
async function pagesRead(admin: pg.Client, sql: string, params: unknown[]): Promise<number> {
  const plan = (await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params)).rows[0]['QUERY PLAN'] as [
    { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } },
  ];
  return plan[0].Plan['Shared Hit Blocks'] + plan[0].Plan['Shared Read Blocks'];
}

/** 4 threads with 200 pending runs each, each run a page's fifth: the queue of a busy tenant. */
async function busyQueue(admin: pg.Client): Promise<void> {
  await admin.query(
    `INSERT INTO agentplane_threads (thread_id, owner, status, created_at, updated_at, metadata, doc)
       SELECT 't' || i, 'o', 'busy', now(), now(), '{}', '{}' FROM generate_series(1, 4) i`,
  );
  await admin.query(
    `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc)
       SELECT 'r' || t || '-' || k, 't' || t, 'o', 'pending', now() - interval '1 second', 0, json_build_object('pad', repeat('x', 1500))
         FROM generate_series(1, 200) k, generate_series(1, 4) t ORDER BY k, t`,
  );
  await admin.query('ANALYZE agentplane_runs');
}

test("a claim reads each thread's first pending run, not the thread's queue behind it", async () => {
  await withSchema(async (admin) => {
    await busyQueue(admin);
    const sql = CANDIDATE_SQL.replace('FOR UPDATE OF r SKIP LOCKED', '');
    // a few pages a thread; read as every pending run of the index and each one's page kept
    // (a bitmap scan), the look read the 800 pending runs' ~160 pages
    const pages = await pagesRead(admin, sql, [[], 10, 'replica', 9]);
    assert.ok(pages < 40, `pages read: ${pages}`);
    const { rows: taken } = await admin.query<{ run_id: string }>(sql, [[], 10, 'replica', 9]);
    assert.deepEqual(taken.map((r) => r.run_id).sort(), ['r1-1', 'r2-1', 'r3-1', 'r4-1']);
    // a thread whose first pending run is skipped offers none of its later ones
    const { rows: others } = await admin.query<{ run_id: string }>(sql, [['r2-1'], 10, 'replica', 9]);
    assert.deepEqual(others.map((r) => r.run_id).sort(), ['r1-1', 'r3-1', 'r4-1']);
  });
});

test('the look for the next delayed run reads the delayed runs, not every pending run', async () => {
  await withSchema(async (admin) => {
    await busyQueue(admin);
    await admin.query(
      `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc)
         VALUES ('later', 't1', 'o', 'pending', '2026-01-01T00:00:00Z', 1e10, '{}')`,
    );
    await admin.query('ANALYZE agentplane_runs');
    const { rows } = await admin.query<{ due: number }>(NEXT_DUE_SQL);
    assert.equal(rows[0].due, Date.parse('2026-01-01T00:00:00Z') / 1000 + 1e10);
    // read as every pending run of the index and each one's page kept, ~160 pages
    const pages = await pagesRead(admin, NEXT_DUE_SQL, []);
    assert.ok(pages < 10, `pages read: ${pages}`);
  });
});

test("a run's end state reads its thread's record only when asked: otherwise whether the thread is there", async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  await a.ready();
  const claims = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events: new PgRunEventLog(store, a), warn: () => {} });
  try {
    const threads = store.collection<ThreadRecord>('threads');
    const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    const thread = { thread_id: 't1', status: 'busy', values: { messages: ['a long history'] } } as unknown as ThreadRecord;
    await threads.put('t1', thread);
    await runs.put('r1', run('r1', 't1'));
    const claimed = (await claimOne(claims))!;
    const whole = await claims.endState(claimed.run, true);
    assert.deepEqual([whole.run?.status, whole.threadThere, whole.thread?.values], ['running', true, thread.values]);
    const bare = await claims.endState(claimed.run, false);
    assert.deepEqual([bare.run?.status, bare.threadThere, bare.thread], ['running', true, undefined]);
    await threads.delete('t1');
    for (const withThread of [true, false]) {
      const gone = await claims.endState(claimed.run, withThread);
      assert.deepEqual([gone.run, gone.threadThere, gone.thread], [undefined, false, undefined]);
    }
  } finally {
    await a.close();
    await store.close();
  }
});

test('alone on the database, a run queued and a run ended send no NOTIFY to other replicas, and wake the waiters here; once another replica is there they do', async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (message) => heard.push(message.channel));
  for (const channel of ['agentplane_runs_claimable', 'agentplane_thread_runs', 'agentplane_run_events']) await listener.query(`LISTEN ${channel}`);
  await a.ready();
  const events = new PgRunEventLog(store, a);
  const claims = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events, warn: () => {} });
  const threads = store.collection<{ thread_id: string }>('threads');
  /** A run queued on a thread of its own while a reader waits for it there, claimed, and ended with its log; then a moment for the NOTIFYs to arrive. */
  const oneRun = async (id: string) => {
    const thread_id = `t-${id}`;
    await threads.put(thread_id, { thread_id });
    let woken = false;
    const waiting = events.nextRunOn(thread_id).then(() => (woken = true));
    const queued = run(id, thread_id);
    assert.deepEqual(await claims.enqueue([{ collection: 'runs', id, value: queued }], queued, ''), { woke: true });
    await Promise.race([waiting, sleep(10_000)]);
    assert.ok(woken, "the thread's waiter here is woken");
    const claim = (await claimOne(claims))!;
    await events.begin(id, () => {}, 1);
    events.publish(id, 'values', { n: 1 });
    events.executed(id);
    const ended = { ...claim.run, status: 'success' as const };
    assert.equal(await claims.recordEnd(claim, [{ collection: 'runs', id, value: ended }], ended, { events: [], result: { n: 1 } }), true);
    await events.end(id);
    assert.equal(
      await store
        .collection<RunRecord>('runs')
        .get(id)
        .then((r) => r?.status),
      'success',
    );
    await sleep(200);
  };
  try {
    assert.equal(a.alone(), true);
    await oneRun('r1');
    assert.deepEqual(heard, [], 'alone: no one to tell');
    await b.ready();
    assert.equal(a.alone(), false);
    await oneRun('r2');
    // the queued run (its thread had no claim: the claimers, and the thread's waiters), and the claim given up with its log's end
    assert.deepEqual(heard.sort(), ['agentplane_run_events', 'agentplane_runs_claimable', 'agentplane_runs_claimable', 'agentplane_thread_runs']);
  } finally {
    await listener.end();
    await a.close();
    await b.close();
    await store.close();
  }
});

test('a run queued alone whose write is under way when another replica comes: that replica is ready only once the run is stored (no NOTIFY will tell it)', async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  const b = new PgCoordination({ url });
  // an uncommitted row with the run's log key holds the enqueue's statement (ON CONFLICT waits for it)
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  await a.ready();
  const events = new PgRunEventLog(store, a);
  const claims = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events, warn: () => {} });
  try {
    assert.equal(a.alone(), true);
    await store.collection<{ thread_id: string }>('threads').put('t-held', { thread_id: 't-held' });
    await blocker.query('BEGIN');
    await blocker.query("INSERT INTO agentplane_run_logs (run_id, owner, thread_id) VALUES ('held', '', 't-held')");
    const queued = run('held', 't-held');
    const enqueued = claims.enqueue([{ collection: 'runs', id: 'held', value: queued }], queued, '');
    await sleep(200);
    let bReady = false;
    const coming = b.ready().then(() => (bReady = true));
    const deadline = Date.now() + 10_000;
    while (a.alone() && Date.now() < deadline) await sleep(20);
    assert.equal(a.alone(), false, 'a was asked to share');
    await sleep(500);
    assert.equal(bReady, false, "b waits while a's write alone, which sends b no NOTIFY, is under way");
    await blocker.query('ROLLBACK');
    await enqueued;
    await coming;
    assert.equal((await store.collection<RunRecord>('runs').get('held'))?.run_id, 'held', 'stored before b served');
  } finally {
    await blocker.end();
    await a.close();
    await b.close();
    await store.close();
  }
});

test("a run's end writes its result and its thread's values from the text its last `values` event was serialised into when published: the values serialised once", async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const a = new PgCoordination({ url });
  await a.ready();
  const events = new PgRunEventLog(store, a);
  const claims = new PgRunClaims({ store, coordination: a, leaseMs: 60_000, events, warn: () => {} });
  const threads = store.collection<ThreadRecord>('threads');
  try {
    const [id, thread_id] = ['r-once', 't-once'];
    await threads.put(thread_id, {
      thread_id,
      status: 'busy',
      created_at: started.updated_at,
      updated_at: started.updated_at,
      metadata: {},
      values: {},
    } as ThreadRecord);
    const queued = run(id, thread_id);
    await claims.enqueue([{ collection: 'runs', id, value: queued }], queued, '');
    const claim = (await claimOne(claims))!;
    await events.begin(id, () => {}, 1);
    // the run's end state, as a run stream publishes it: every serialisation of it reads its messages
    let serialised = 0;
    const messages = [{ type: 'ai', content: 'say "hi" \\ 😀 \u2028' }];
    const values = {
      get messages() {
        serialised += 1;
        return messages;
      },
    };
    events.publish(id, 'values', values);
    events.executed(id);
    assert.equal(serialised, 1, 'serialised as it was published');
    const ended = { ...claim.run, status: 'success' as const };
    const settle = {
      collection: 'threads',
      id: thread_id,
      set: { status: 'idle', updated_at: ended.updated_at, values },
      whileAny: { collection: 'runs', where: { thread_id, status: 'pending' }, set: { status: 'busy' } },
    };
    assert.equal(await claims.recordEnd(claim, [{ collection: 'runs', id, value: ended }, settle], ended, { events: [], result: values }), true);
    await events.end(id);
    assert.equal(serialised, 1, 'the end wrote the text made when it was published');
    const { rows } = await store.query<{ result: unknown }>('SELECT result FROM agentplane_run_logs WHERE run_id = $1', [id]);
    assert.deepEqual(rows[0]?.result, { messages });
    const thread = (await threads.get(thread_id))!;
    assert.deepEqual([thread.status, thread.values], ['idle', { messages }]);
  } finally {
    await a.close();
    await store.close();
  }
});
