// The queries the repositories issue on PostgreSQL are served by indexes at scale: 100,000
// threads (and a run per thread) across many owners, seeded in one INSERT … SELECT each,
// analysed, then each query EXPLAINed. A plan that scans a big table sequentially fails the
// test, whatever the query's speed on this machine today.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { migratedDatabaseUrl } from '../support/postgres.ts';
import { openPgStore, type PgStore } from '../../src/adapters/postgres/pgStore.ts';
import { countSql, searchSql } from '../../src/adapters/postgres/pgThreads.ts';
import { assistantSearchSql } from '../../src/adapters/postgres/pgAssistants.ts';
import { assistantRunSummarySql, runsOfThreadSql, runsWithStatusSql } from '../../src/adapters/run-storage/pgRunStore.ts';
import { deploymentListSql } from '../../src/adapters/postgres/pgDeployments.ts';
import { CANDIDATE_SQL, NEXT_DUE_SQL } from '../../src/adapters/run-storage/pgRunClaims.ts';
import { FIRST_READS_SQL } from '../../src/adapters/run-storage/pgFirstReads.ts';
import type { ThreadFilter, ThreadPage } from '../../src/domain/ports/threadsRepository.ts';

const THREADS = 100_000;
/** 1,000 owners of 100 threads each (owner-7 is the one asked about). */
const OWNERS = 1_000;

let store: PgStore;
let admin: pg.Client;

before(async () => {
  const url = await migratedDatabaseUrl();
  store = await openPgStore({ url });
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`
    INSERT INTO agentplane_threads (thread_id, owner, status, created_at, updated_at, metadata, doc)
    SELECT 't' || i, 'owner-' || (i % ${OWNERS}), (ARRAY['idle', 'busy', 'error', 'interrupted'])[1 + i % 4],
           now() - i * interval '1 second', now() - (i % 977) * interval '1 second',
           jsonb_build_object('n', i, 'team', 'team-' || (i % 50)), json_build_object('thread_id', 't' || i)
    FROM generate_series(1, ${THREADS}) AS i`);
  await admin.query(`
    INSERT INTO agentplane_runs (run_id, thread_id, owner, assistant_id, status, created_at, updated_at, after_seconds, doc)
    SELECT 'r' || i, 't' || i, 'owner-' || (i % ${OWNERS}), 'a', CASE WHEN i % 1000 = 0 THEN 'pending' ELSE 'success' END,
           now() - i * interval '1 second', now(), 0, json_build_object('run_id', 'r' || i)
    FROM generate_series(1, ${THREADS}) AS i`);
  await admin.query(`
    INSERT INTO agentplane_assistants (assistant_id, owner, graph_id, name, created_at, updated_at, metadata, doc)
    SELECT 'a' || i, CASE WHEN i <= 3 THEN '' ELSE 'owner-' || (i % ${OWNERS}) END, 'g' || (i % 3), 'assistant ' || i,
           now() - i * interval '1 second', now(), jsonb_build_object('n', i), json_build_object('assistant_id', 'a' || i)
    FROM generate_series(1, ${THREADS}) AS i`);
  await admin.query(`
    INSERT INTO agentplane_deployments (id, tenant_id, tenant_name, name, status, created_at, updated_at, doc)
    SELECT 'd' || i, 'owner-' || (i % ${OWNERS}), 'owner-' || (i % ${OWNERS}) || '/dep' || i, 'dep' || i, 'READY', now(), now(), json_build_object('id', 'd' || i)
    FROM generate_series(1, ${THREADS}) AS i`);
  await admin.query('ANALYZE agentplane_threads, agentplane_runs, agentplane_assistants, agentplane_deployments');
});

after(async () => {
  await admin?.end();
  await store?.close();
});

async function plan(statement: { sql: string; params: unknown[] }): Promise<string> {
  const { rows } = await admin.query({ text: `EXPLAIN ${statement.sql}`, values: statement.params });
  return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
}

function assertIndexed(text: string, table: string): void {
  assert.match(text, new RegExp(`(Index|Index Only|Bitmap Index) Scan( Backward)? (using|on) ${table}_`), text);
  assert.doesNotMatch(text, new RegExp(`Seq Scan on ${table}\\b`), text);
}

const owner = 'owner-7';
const firstPage = (sortBy: ThreadPage['sortBy']): ThreadPage => ({ sortBy, order: 'desc', offset: 0, limit: 10 });

test('thread search by owner, newest first, is an index scan', async () => {
  assertIndexed(await plan(searchSql({ owner }, firstPage('created_at'))), 'agentplane_threads');
});

test("the dashboard's list (updated_at desc, limit) is an index scan", async () => {
  assertIndexed(await plan(searchSql({ owner }, firstPage('updated_at'))), 'agentplane_threads');
});

test('thread search by owner and status is an index scan', async () => {
  assertIndexed(await plan(searchSql({ owner, status: 'error' }, firstPage('created_at'))), 'agentplane_threads');
});

test('thread search by owner and metadata is served by an index', async () => {
  const filter: ThreadFilter = { owner, metadata: { n: 1007 } };
  assertIndexed(await plan(searchSql(filter, firstPage('created_at'))), 'agentplane_threads');
});

test('thread count by owner (and by owner and status) is an index scan', async () => {
  assertIndexed(await plan(countSql({ owner })), 'agentplane_threads');
  assertIndexed(await plan(countSql({ owner, status: 'busy' })), 'agentplane_threads');
});

test('thread search and count give the right answers at 100k', async () => {
  const { PgThreads } = await import('../../src/adapters/postgres/pgThreads.ts');
  const threads = new PgThreads(store);
  assert.equal(await threads.count({ owner }), THREADS / OWNERS);
  const page = await threads.search({ owner }, firstPage('created_at'));
  // created_at falls as i grows: the newest of owner-7's are its smallest i
  assert.deepEqual(page.map((t) => t.thread_id).slice(0, 3), ['t7', 't1007', 't2007']);
});

test("assistant search (the owner's and the system ones, newest first) is served by indexes", async () => {
  const filter = { owner, systemIds: ['a1', 'a2', 'a3'], graphIds: ['g0', 'g1', 'g2'] };
  assertIndexed(await plan(assistantSearchSql(filter, { sortBy: 'created_at', order: 'desc', offset: 0, limit: 10 })), 'agentplane_assistants');
  assertIndexed(
    await plan(assistantSearchSql({ ...filter, graph_id: 'g1', metadata: { n: 7 } }, { sortBy: 'name', order: 'asc', offset: 0, limit: 10 })),
    'agentplane_assistants',
  );
});

test("a tenant's deployments list, newest first, filtered or not, is an index scan", async () => {
  assertIndexed(await plan(deploymentListSql(owner, {}, { offset: 0, limit: 20 })), 'agentplane_deployments');
  assertIndexed(await plan(deploymentListSql(owner, { name_contains: 'dep1', status: 'READY' }, { offset: 0, limit: 20 })), 'agentplane_deployments');
});

test('runs by thread, by status, and the claim queries are index scans', async () => {
  assertIndexed(await plan(runsOfThreadSql('t42', { offset: 0, limit: 10 })), 'agentplane_runs');
  assertIndexed(await plan(runsOfThreadSql('t42', { status: 'success', offset: 0, limit: 10 })), 'agentplane_runs');
  assertIndexed(await plan(runsWithStatusSql(owner, ['pending', 'running'])), 'agentplane_runs');
  assertIndexed(await plan(runsWithStatusSql(owner, ['pending', 'running'], 't7')), 'agentplane_runs');
  // the run lifecycle's and the metrics' reads through the collection's `where`
  assertIndexed(
    await plan({ sql: 'SELECT seq, doc FROM agentplane_runs WHERE thread_id = $1 AND status = $2 ORDER BY seq ASC', params: ['t42', 'pending'] }),
    'agentplane_runs',
  );
  assertIndexed(await plan({ sql: `SELECT count(*) AS n FROM agentplane_runs WHERE status = $1`, params: ['pending'] }), 'agentplane_runs');
  assertIndexed(await plan({ sql: CANDIDATE_SQL.replace('FOR UPDATE OF r SKIP LOCKED', ''), params: [[], 1, 'replica', 9] }), 'agentplane_runs');
  assertIndexed(await plan({ sql: NEXT_DUE_SQL, params: [] }), 'agentplane_runs');
});

test('deleting a thread deletes its runs (foreign key with cascade)', async () => {
  await admin.query(`DELETE FROM agentplane_threads WHERE thread_id = 't5'`);
  assert.equal((await admin.query(`SELECT count(*)::int AS n FROM agentplane_runs WHERE thread_id = 't5'`)).rows[0].n, 0);
});

test("an assistant's run metrics over the last hour read its runs through an index", async () => {
  assertIndexed(await plan(assistantRunSummarySql({ owner, assistantId: 'a', since: new Date(Date.now() - 3_600_000) })), 'agentplane_runs');
});

test("a run's first reads (alone, and each claimed run's in the claim) look each channel value up by its key, never the whole values table", async () => {
  // a few thousand values, as the bench's LangGraph round leaves them (2,418): a join of a
  // chain's parts hashed the whole table there, for every run claimed
  await admin.query(`
    INSERT INTO agentplane_checkpoint_values (id, thread_id, doc)
    SELECT 't' || (i % 200) || '::messages:' || i, 't' || (i % 200), json_build_object('v', repeat('x', 400))
    FROM generate_series(1, 3000) AS i`);
  await admin.query('ANALYZE agentplane_checkpoint_values');
  assertIndexed(await plan({ sql: FIRST_READS_SQL, params: ['t7', 't7:', ':', 't7::'] }), 'agentplane_checkpoint_values');
});
