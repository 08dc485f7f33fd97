// A database written by a server before the area tables (every record in agentplane_records,
// migrations 1 and 2 applied, run-time indexes made) is moved into the tables on start:
// records read back the same, in the same order, through the columns; the old rows and
// indexes are gone; a run whose thread was gone is not moved. Mixed versions never split the
// data: a build refuses a schema newer than it knows, and what a build older than the area
// tables reads and writes fails, naming the versions, instead of serving an empty store.
import test from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabaseUrl, migratedDatabaseUrl, withAdmin } from '../../support/postgres.ts';
import { spawnServer, tempDir } from '../../support/server.ts';
import { MIGRATIONS } from '../../../src/adapters/postgres/pgMigrations.ts';
import { openPgStore, SCHEMA_VERSION } from '../../../src/adapters/postgres/pgStore.ts';
import { PgThreads } from '../../../src/adapters/postgres/pgThreads.ts';
import { PgCrons } from '../../../src/adapters/postgres/pgCrons.ts';
import type { RunRecord, ThreadRecord } from '../../../src/domain/agent/records.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const thread = (id: string, owner: string | undefined, s: number): ThreadRecord => ({
  thread_id: id,
  ...(owner === undefined ? {} : { owner }),
  created_at: at(s),
  updated_at: at(100 - s),
  metadata: { n: s, tags: ['a', 'b'] },
  status: 'idle',
  config: {},
  interrupts: {},
});

test('start on the one-table layout: every area moves to its table, in order, with its columns', async () => {
  const url = await freshDatabaseUrl();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    // the layout of the previous release: migrations 1 and 2 only, and a run-time index
    await admin.query('CREATE TABLE agentplane_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const m of MIGRATIONS.filter((m) => m.version <= 2)) {
      await admin.query(m.sql);
      await admin.query('INSERT INTO agentplane_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await admin.query(`CREATE INDEX agentplane_ix_old ON agentplane_records ((doc->>'status'), seq) WHERE collection = 'threads'`);
    await admin.query(`INSERT INTO agentplane_indexes (collection, field, index_name) VALUES ('threads', 'status', 'agentplane_ix_old')`);
    const put = (collection: string, id: string, doc: object) =>
      admin.query('INSERT INTO agentplane_records (collection, id, doc) VALUES ($1, $2, $3::json)', [collection, id, JSON.stringify(doc)]);
    // written in this order: t2 first, so insertion order is not id order
    await put('threads', 't2', thread('t2', 'alice', 2));
    await put('threads', 't1', thread('t1', 'alice', 1));
    await put('threads', 't3', thread('t3', undefined, 3));
    const run = (id: string, threadId: string): RunRecord =>
      ({
        run_id: id,
        thread_id: threadId,
        owner: 'alice',
        assistant_id: 'a',
        graph_id: 'g',
        created_at: at(5),
        updated_at: at(5),
        status: 'pending',
        metadata: {},
        kwargs: { after_seconds: 30 },
        multitask_strategy: 'enqueue',
        attempt: 1,
      }) as RunRecord;
    await put('runs', 'r1', run('r1', 't1'));
    await put('runs', 'orphan', run('orphan', 'gone'));
    await put('cp-deployments', 'd1', { id: 'd1', tenant_id: 'tn', tenant_name: 'tn/x', name: 'x', status: 'READY', created_at: at(1), updated_at: at(1) });
    await put('cp-revisions', 'v1', { id: 'v1', deployment_id: 'd1', tenant_id: 'tn', status: 'DEPLOYED', created_at: at(1), updated_at: at(1) });
    await put('crons', 'c1', {
      cron_id: 'c1',
      scope: '',
      thread_id: null,
      assistant_id: 'a',
      enabled: true,
      next_run_date: at(9),
      end_time: null,
      created_at: at(1),
      updated_at: at(1),
      metadata: { k: 1 },
    });
    await put('crons', 'c2', {
      cron_id: 'c2',
      scope: '',
      thread_id: null,
      assistant_id: 'a',
      enabled: false,
      next_run_date: null,
      end_time: null,
      created_at: at(2),
      updated_at: at(2),
      metadata: {},
    });
    await put('unknown_area', 'u1', { id: 'u1' });

    const store = await openPgStore({ url });
    try {
      const threads = store.collection<ThreadRecord>('threads', { indexes: ['status'], containment: ['metadata'] });
      assert.deepEqual(await threads.get('t1'), thread('t1', 'alice', 1), 'a document reads back as it was written');
      assert.deepEqual(
        (await threads.list()).map((t) => t.thread_id),
        ['t2', 't1', 't3'],
        'insertion order is kept',
      );
      const queries = new PgThreads(store);
      assert.deepEqual(
        (await queries.search({ owner: 'alice' }, { sortBy: 'updated_at', order: 'desc', offset: 0, limit: 10 })).map((t) => t.thread_id),
        ['t1', 't2'],
      );
      assert.equal(await queries.count({ owner: '' }), 1, "a thread stored without an owner is the open server's");
      assert.equal(await queries.count({ owner: 'alice', metadata: { tags: ['a'] } }), 0, 'metadata equality, not array containment');
      assert.equal(await queries.count({ owner: 'alice', metadata: { tags: ['a', 'b'] } }), 2);

      const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
      assert.equal((await runs.get('r1'))?.thread_id, 't1');
      assert.equal(await runs.get('orphan'), undefined, 'a run whose thread is gone is not moved');
      const { rows } = await admin.query(`SELECT thread_id, owner, status, after_seconds, created_at FROM agentplane_runs WHERE run_id = 'r1'`);
      assert.deepEqual(rows[0], { thread_id: 't1', owner: 'alice', status: 'pending', after_seconds: 30, created_at: new Date(at(5)) });
      assert.deepEqual(
        (await store.collection<{ id: string }>('cp-revisions').list({ where: { deployment_id: 'd1' } })).map((r) => r.id),
        ['v1'],
      );
      const crons = new PgCrons(store);
      assert.deepEqual(
        (await crons.due()).map((c) => c.cron_id),
        ['c1'],
        'the due crons, through the enabled and next_run_date columns',
      );
      assert.deepEqual(
        (await crons.search({ scope: '', metadata: { k: 1 } }, { sortBy: 'created_at', order: 'desc', offset: 0, limit: 10 })).map((c) => c.cron_id),
        ['c1'],
      );
      const deployment = await admin.query(`SELECT name, status FROM agentplane_deployments WHERE id = 'd1'`);
      assert.deepEqual(deployment.rows[0], { name: 'x', status: 'READY' });
      assert.deepEqual(await store.collection('unknown_area').get('u1'), { id: 'u1' }, 'a collection of no area stays in the generic table');

      const left = await admin.query(`SELECT collection FROM agentplane_documents ORDER BY collection`);
      assert.deepEqual(
        left.rows.map((r) => r.collection),
        ['unknown_area'],
      );
      const oldIndex = await admin.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'agentplane_ix_old'`);
      assert.equal(oldIndex.rowCount, 0, 'the run-time index of a moved collection is dropped');
      const tables = await admin.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
      for (const table of [
        'agentplane_threads',
        'agentplane_runs',
        'agentplane_assistants',
        'agentplane_assistant_versions',
        'agentplane_checkpoints',
        'agentplane_store_items',
        'agentplane_crons',
        'agentplane_a2a_tasks',
        'agentplane_deployments',
        'agentplane_revisions',
      ]) {
        assert.ok(
          tables.rows.some((r) => r.tablename === table),
          `${table} exists`,
        );
      }
    } finally {
      await store.close();
    }
  } finally {
    await admin.end();
  }
});

test('a server refuses to start on a schema newer than it knows, naming both versions', async () => {
  const url = await freshDatabaseUrl();
  await (await openPgStore({ url })).close();
  const newer = SCHEMA_VERSION + 1;
  await withAdmin(url, (admin) => admin.query(`INSERT INTO agentplane_migrations (version, name) VALUES ($1, 'from a newer build')`, [newer]));
  await assert.rejects(openPgStore({ url }), (err: Error) => {
    assert.equal(err.name, 'SchemaTooNewError');
    assert.match(err.message, new RegExp(`schema is at version ${newer}, newer than this build knows \\(version ${SCHEMA_VERSION}\\)`));
    return true;
  });
  // as an operator sees it: the process exits with the message, and writes nothing
  await assert.rejects(spawnServer(['--data', tempDir()], { DATABASE_URL: url }), (err: Error) => {
    assert.match(err.message, /exited with 1 before listening/);
    assert.match(err.message, new RegExp(`version ${newer}, newer than this build knows \\(version ${SCHEMA_VERSION}\\)`));
    return true;
  });
  const { rows } = await withAdmin(url, (admin) => admin.query<{ version: number }>('SELECT max(version) AS version FROM agentplane_migrations'));
  assert.equal(rows[0].version, newer);
});

test('a build from before the area tables fails loudly on a migrated database instead of serving an empty store', async () => {
  const url = await freshDatabaseUrl();
  const store = await openPgStore({ url });
  try {
    await store.collection<ThreadRecord>('threads').put('t1', thread('t1', 'alice', 1));
    await store.collection<{ id: string }>('unknown_area').put('u1', { id: 'u1' });
  } finally {
    await store.close();
  }
  // what such a build does (src/runtime/store/pgStore.ts before migration 3): its migrations
  // (1 and 2) are applied, so it goes on to check its run-time indexes (at start: the real
  // build exits there with this message), then reads and writes every collection in
  // agentplane_records
  const oldBuild = [
    `SELECT 1 FROM agentplane_indexes WHERE collection = 'threads' AND field = 'status'`,
    `INSERT INTO agentplane_indexes (collection, field, index_name) VALUES ('threads', 'status', 'agentplane_ix_x')`,
    `SELECT seq, doc FROM agentplane_records WHERE collection = 'threads' ORDER BY seq`,
    `SELECT doc FROM agentplane_records WHERE collection = 'threads' AND id = 't1'`,
    `INSERT INTO agentplane_records (collection, id, doc) VALUES ('threads', 't9', '{}'::json)`,
    `UPDATE agentplane_records SET doc = '{}'::json WHERE collection = 'threads'`,
    `DELETE FROM agentplane_records WHERE collection = 'threads' AND id = 't1'`,
  ];
  await withAdmin(url, async (admin) => {
    for (const sql of oldBuild)
      await assert.rejects(admin.query(sql), (err: Error & { hint?: string }) => {
        assert.match(err.message, new RegExp(`schema is at version ${SCHEMA_VERSION}, and this build of agentplane is older than version 3`), sql);
        assert.match(err.hint ?? '', /Upgrading replicas/);
        return true;
      });
  });
  // and the records are where the current build keeps them, untouched
  const again = await openPgStore({ url });
  try {
    assert.deepEqual(await again.collection<ThreadRecord>('threads').get('t1'), thread('t1', 'alice', 1));
    assert.deepEqual(await again.collection('unknown_area').get('u1'), { id: 'u1' });
  } finally {
    await again.close();
  }
});

test("a copy of the run's migrated database (the tests' migratedDatabaseUrl) is what migrating an empty one makes: the same migrations, tables, columns, indexes, functions and triggers", async () => {
  const schemaOf = (url: string) =>
    withAdmin(url, async (admin) => {
      const rows = async (sql: string) => (await admin.query(sql)).rows.map((r) => JSON.stringify(r)).sort();
      return {
        migrations: await rows('SELECT version, name FROM agentplane_migrations'),
        columns: await rows(
          "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public'",
        ),
        indexes: await rows("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"),
        functions: await rows(
          "SELECT p.proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'",
        ),
        triggers: await rows('SELECT event_object_table, trigger_name, event_manipulation, action_statement FROM information_schema.triggers'),
        sequences: await rows("SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'"),
      };
    });
  const migrated = await freshDatabaseUrl();
  await (await openPgStore({ url: migrated })).close();
  const copied = await migratedDatabaseUrl();
  const expected = await schemaOf(migrated);
  assert.equal(expected.migrations.length, MIGRATIONS.length);
  assert.deepEqual(await schemaOf(copied), expected);
  // and a store opened on the copy finds nothing to apply
  await (await openPgStore({ url: copied })).close();
  assert.deepEqual(await schemaOf(copied), expected);
});
