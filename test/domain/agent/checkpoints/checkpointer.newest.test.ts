// The newest checkpoint of a thread, which every run reads when it starts, is the one with
// the highest id (ids are time-ordered), on either store, even when a lower one was written
// last (a cancelled run's late write); on PostgreSQL it is one row read through the
// checkpoint-id index, however long the thread (it was every checkpoint of the thread, each
// holding the whole state), and a database from before that index gets the column filled.
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { emptyCheckpoint } from '@langchain/langgraph';
import { freshDatabaseUrl, migratedDatabaseUrl } from '../../../support/postgres.ts';
import { MIGRATIONS } from '../../../../src/adapters/postgres/pgMigrations.ts';
import { openPgStore, type PgStore } from '../../../../src/adapters/postgres/pgStore.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import type { Store } from '../../../../src/domain/ports/store.ts';

const thread = (threadId: string, checkpointId?: string) => ({
  configurable: { thread_id: threadId, checkpoint_ns: '', ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
});
const id = (n: number) => `1ef00000-0000-6000-8000-${String(n).padStart(12, '0')}`;

/** Puts checkpoints 1..count on the thread, then checkpoint 0 (the lowest id) last. */
async function writeOutOfOrder(store: Store, threadId: string, count: number): Promise<void> {
  const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
  for (const n of [...Array.from({ length: count }, (_, i) => i + 1), 0]) {
    await saver.put(thread(threadId), { ...emptyCheckpoint(), id: id(n), channel_values: { n } }, { source: 'loop', step: n, parents: {} } as never);
  }
}

/** What `work` answers, and every query the pg clients sent meanwhile with the rows each returned. */
async function watchingQueries<T>(work: () => Promise<T>): Promise<{ value: T; sent: { text: string; rows: number }[] }> {
  const sent: { text: string; rows: number }[] = [];
  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string }).text ?? '');
    const seen = (r: pg.QueryResult | undefined) => void sent.push({ text, rows: r?.rowCount ?? 0 });
    // the pool calls with a callback; a direct caller awaits the promise
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (err: Error | null, r?: pg.QueryResult) => void;
      args[last] = (err: Error | null, r?: pg.QueryResult) => {
        if (!err) seen(r);
        callback(err, r);
      };
    }
    const result = (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) void result.then(seen, () => undefined);
    return result;
  } as typeof clientQuery;
  try {
    return { value: await work(), sent };
  } finally {
    pg.Client.prototype.query = clientQuery;
  }
}

let url: string;
let store: PgStore;
let admin: pg.Client;

before(async () => {
  url = await migratedDatabaseUrl();
  store = await openPgStore({ url });
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});

after(async () => {
  await admin?.end();
  await store?.close();
});

test('the embedded store: the highest id is the newest, whatever the order of the writes', async () => {
  const embedded = await openJournalStore({ dataDir: null });
  try {
    await writeOutOfOrder(embedded, 'e1', 5);
    const newest = await new StoreCheckpointer(new CollectionCheckpoints(embedded)).getTuple(thread('e1'));
    assert.equal(newest?.checkpoint.id, id(5));
    assert.deepEqual(newest?.checkpoint.channel_values, { n: 5 });
  } finally {
    await embedded.close();
  }
});

test('PostgreSQL: the newest checkpoint is one row, by the checkpoint-id index, and the highest id', async () => {
  await writeOutOfOrder(store, 'p1', 40);
  // other threads' checkpoints make the table big enough for the planner to choose by cost
  await admin.query(`
    INSERT INTO agentplane_checkpoints (id, thread_id, thread_ns, checkpoint_id, doc)
    SELECT 'x' || i, 't' || (i % 5000), 't' || (i % 5000) || chr(31), lpad(i::text, 12, '0'), json_build_object('checkpoint_id', lpad(i::text, 12, '0'))
    FROM generate_series(1, 50000) AS i`);
  await admin.query('ANALYZE agentplane_checkpoints');

  const { value: newest, sent } = await watchingQueries(() => new StoreCheckpointer(new CollectionCheckpoints(store)).getTuple(thread('p1')));
  assert.equal(newest?.checkpoint.id, id(40));
  assert.deepEqual(newest?.checkpoint.channel_values, { n: 40 });
  const read = sent.filter((s) => /FROM agentplane_checkpoints\b/.test(s.text));
  assert.equal(read.length, 1, `one read of checkpoints: ${JSON.stringify(read.map((s) => s.text))}`);
  assert.equal(read[0].rows, 1, 'one row, not every checkpoint of the thread');

  const plan = (await admin.query({ text: `EXPLAIN ${read[0].text}`, values: ['p1\u001f', 0, 1] })).rows.map((r) => r['QUERY PLAN'] as string).join('\n');
  assert.match(plan, /Index Scan Backward using agentplane_checkpoints_newest/, plan);
  assert.doesNotMatch(plan, /Sort|Seq Scan/, plan);
});

test('PostgreSQL: a database from before the checkpoint-id column gets it filled from the documents', async () => {
  const old = await freshDatabaseUrl();
  const client = new pg.Client({ connectionString: old });
  await client.connect();
  try {
    await client.query('CREATE TABLE agentplane_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const m of MIGRATIONS.filter((m) => m.version < 5)) {
      await client.query(m.sql);
      await client.query('INSERT INTO agentplane_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query(`INSERT INTO agentplane_checkpoints (id, thread_id, thread_ns, doc) VALUES
      ('a', 'o1', 'o1' || chr(31), json_build_object('thread_id', 'o1', 'thread_ns', 'o1' || chr(31), 'checkpoint_id', '${id(2)}', 'checkpoint_ns', '')),
      ('b', 'o1', 'o1' || chr(31), json_build_object('thread_id', 'o1', 'thread_ns', 'o1' || chr(31), 'checkpoint_id', '${id(1)}', 'checkpoint_ns', ''))`);
    const reopened = await openPgStore({ url: old });
    try {
      const { rows } = await client.query('SELECT id, checkpoint_id FROM agentplane_checkpoints ORDER BY id');
      assert.deepEqual(rows, [
        { id: 'a', checkpoint_id: id(2) },
        { id: 'b', checkpoint_id: id(1) },
      ]);
      const [newest] = await reopened
        .collection<{ checkpoint_id: string }>('checkpoints')
        .list({ where: { thread_ns: 'o1\u001f' }, orderBy: 'checkpoint_id', reverse: true, limit: 1 });
      assert.equal(newest?.checkpoint_id, id(2));
    } finally {
      await reopened.close();
    }
  } finally {
    await client.end();
  }
});

test("a thread's history page reads only its rows, from the newest or before a checkpoint; with a metadata filter it is the same list", async () => {
  const embedded = await openJournalStore({ dataDir: null });
  try {
    await writeOutOfOrder(store, 'h1', 40);
    await writeOutOfOrder(embedded, 'h1', 40);
    const ids = async (saver: StoreCheckpointer, options: Parameters<StoreCheckpointer['list']>[1]) => {
      const out: string[] = [];
      for await (const tuple of saver.list(thread('h1'), options)) out.push(tuple.checkpoint.id);
      return out;
    };
    const { value: page, sent } = await watchingQueries(() => ids(new StoreCheckpointer(new CollectionCheckpoints(store)), { limit: 3 }));
    assert.deepEqual(page, [id(40), id(39), id(38)]);
    const read = sent.filter((s) => /FROM agentplane_checkpoints\b/.test(s.text));
    assert.deepEqual(
      read.map((s) => s.rows),
      [3],
      'the page, not all 41 checkpoints',
    );
    const { value: older, sent: olderSent } = await watchingQueries(() =>
      ids(new StoreCheckpointer(new CollectionCheckpoints(store)), { limit: 2, before: thread('h1', id(10)) }),
    );
    assert.deepEqual(older, [id(9), id(8)]);
    assert.deepEqual(
      olderSent.filter((s) => /FROM agentplane_checkpoints\b/.test(s.text)).map((s) => s.rows),
      [2],
      'a page before a checkpoint reads its rows only too',
    );
    for (const saver of [new StoreCheckpointer(new CollectionCheckpoints(store)), new StoreCheckpointer(new CollectionCheckpoints(embedded))]) {
      assert.deepEqual(await ids(saver, { limit: 3 }), [id(40), id(39), id(38)]);
      assert.deepEqual(await ids(saver, { limit: 2, before: thread('h1', id(10)) }), [id(9), id(8)]);
      assert.deepEqual(await ids(saver, { limit: 2, filter: { step: 0 } }), [id(0)]);
      assert.equal((await ids(saver, {})).length, 41);
    }
  } finally {
    await embedded.close();
  }
});
