// A SetOp on PostgreSQL (pgSetOp.ts) against a transaction that commits while it waits for the
// row: the transaction stores a pending run and marks its thread busy (as a run's enqueue does)
// and holds its locks; the set of the thread's end starts, waits for the thread's row, and
// the transaction commits. The set then writes the row's newer version, and must count the
// pending run committed meanwhile: a count read with the statement's own snapshot (taken
// before the commit) settled the thread idle with a run pending on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPgStore } from '../../../src/adapters/postgres/pgStore.ts';
import type { WriteOp } from '../../../src/domain/ports/store.ts';
import { migratedDatabaseUrl, withSchema } from '../../support/postgres.ts';

interface Thread {
  thread_id: string;
  status: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  values?: unknown;
}

/** Resolves once a backend of the database waits for a lock (the set, behind the transaction). */
async function waitingForLock(admin: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test("PostgreSQL SetOp: a thread's end counts the run queued by a transaction that commits while the end waits for the thread's row", async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    store.collection('runs', { indexes: ['thread_id', 'status'] });
    const at = new Date().toISOString();
    await threads.put('t', { thread_id: 't', status: 'busy', created_at: at, updated_at: at, metadata: { m: 1 } });
    const end: WriteOp = {
      collection: 'threads',
      id: 't',
      set: { status: 'idle', values: { ended: true } },
      whileAny: { collection: 'runs', where: { thread_id: 't', status: 'pending' }, set: { status: 'busy' } },
    };
    const run = { run_id: 'r', thread_id: 't', status: 'pending', created_at: at, kwargs: {} };
    let ended: Promise<void> | undefined;
    await store.transaction(async (client) => {
      await client.query(`UPDATE agentplane_threads SET status = 'busy', doc = $2::json WHERE thread_id = $1`, [
        't',
        JSON.stringify({ thread_id: 't', status: 'busy', created_at: at, updated_at: at, metadata: { m: 1, queued: true } }),
      ]);
      await client.query(
        `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc) VALUES ($1, $2, '', 'pending', $3, 0, $4::json)`,
        ['r', 't', at, JSON.stringify(run)],
      );
      ended = store.write([end]);
      await waitingForLock(admin);
    });
    await ended;
    const thread = await threads.get('t');
    assert.deepEqual(thread, { thread_id: 't', status: 'busy', created_at: at, updated_at: at, metadata: { m: 1, queued: true }, values: { ended: true } });
    const column = await admin.query(`SELECT status FROM agentplane_threads WHERE thread_id = 't'`);
    assert.equal(column.rows[0].status, 'busy', 'the status column says what the document says');
  } finally {
    await admin.end();
    await store.close();
  }
});

test("PostgreSQL SetOp: whether a thread has runs pending is read from the thread's pending runs, not from its other runs nor other threads' pending ones", async () => {
  await withSchema(async (admin) => {
    // a thread with 2,000 runs done and one pending; 20 threads with 100 pending runs each
    await admin.query(
      `INSERT INTO agentplane_threads (thread_id, owner, status, created_at, updated_at, metadata, doc)
         SELECT 't' || i, 'o', 'busy', now(), now(), '{}', '{}' FROM generate_series(0, 20) i`,
    );
    await admin.query(
      `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc)
         SELECT 'r' || k, 't0', 'o', CASE WHEN k = 2001 THEN 'pending' ELSE 'success' END, now(), 0, json_build_object('pad', repeat('x', 1500))
           FROM generate_series(1, 2001) k`,
    );
    await admin.query(
      `INSERT INTO agentplane_runs (run_id, thread_id, owner, status, created_at, after_seconds, doc)
         SELECT 'q' || t || '-' || k, 't' || t, 'o', 'pending', now(), 0, '{}' FROM generate_series(1, 100) k, generate_series(1, 20) t`,
    );
    await admin.query('ANALYZE agentplane_runs');
    // a run's end asks it of a function whose plan its session keeps after five calls planned
    // for their values (PL/pgSQL's plan cache): kept for any status, that plan read the
    // thread's runs, or every pending run's entry
    const pages: number[] = [];
    for (let i = 0; i < 8; i++) {
      const plan = (await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT agentplane_runs_exist_now('t0', 'pending') AS pending`)).rows[0][
        'QUERY PLAN'
      ] as [{ Plan: { 'Shared Hit Blocks': number } }];
      pages.push(plan[0].Plan['Shared Hit Blocks']);
    }
    assert.ok(
      pages.slice(5).every((n) => n < 10),
      `pages read by each call: ${pages.join(', ')}`,
    );
    assert.equal((await admin.query(`SELECT agentplane_runs_exist_now('t0', 'pending') AS pending`)).rows[0].pending, true);
    await admin.query(`UPDATE agentplane_runs SET status = 'success' WHERE run_id = 'r2001'`);
    assert.equal((await admin.query(`SELECT agentplane_runs_exist_now('t0', 'pending') AS pending`)).rows[0].pending, false);
    assert.equal((await admin.query(`SELECT agentplane_runs_exist_now('t0', 'success') AS done`)).rows[0].done, true);
  });
});

test("PostgreSQL SetOp: the two documents a `whileAny` set sends are JSON.stringify's, each field's value serialised once", async () => {
  const { bothTexts } = await import('../../../src/adapters/postgres/pgSetOp.ts');
  const at = new Date(0);
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ status: 'idle', values: { messages: [{ content: 'say "hi" \\ 😀' }] }, updated_at: at }, { status: 'busy' }],
    [
      { a: 1, gone: undefined, f: () => 1 },
      { b: 2, a: undefined },
    ],
    [{}, {}],
    [
      { 2: 'two', 1: 'one', z: null },
      { 0: 'zero', z: [] },
    ],
    [JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>, { y: 3 }],
  ];
  for (const [plain, over] of cases) assert.deepEqual(bothTexts(plain, over), { plain: JSON.stringify(plain), matched: JSON.stringify({ ...plain, ...over }) });
});

test("PostgreSQL SetOp: a value made from its JSON text (a run worker's values at its end) is written as that text, not serialised again", async () => {
  const { bothTexts } = await import('../../../src/adapters/postgres/pgSetOp.ts');
  const { frozenFromJson } = await import('../../../src/domain/freeze.ts');
  const text = ' { "messages" : [ { "content" : "say \\"hi\\" \\u00fc" } ] } ';
  const values = frozenFromJson(text);
  assert.deepEqual(bothTexts({ status: 'idle', values }, { status: 'busy' }), {
    plain: `{"status":"idle","values":${text}}`,
    matched: `{"status":"busy","values":${text}}`,
  });
});
