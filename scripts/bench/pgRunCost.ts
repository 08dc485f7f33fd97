// `npx tsx scripts/bench/pgRunCost.ts [rounds] [--langgraph] [--replicas=N] [--root=<tree>]`: where an enqueued
// run's cost goes on PostgreSQL (issue 87), in figures that hold on a shared machine: per run,
// the replica's CPU, PostgreSQL's CPU (the postmaster and every backend and helper process),
// the transactions committed, the WAL records, bytes and flushes, and the statements, with the
// statements that cost PostgreSQL the most time. The workload is the replicas phase's
// (replicas.ts: 400 runs over 20 threads, enqueue): the plain echo with run workers off, or
// with --langgraph the LangGraph echo with the default workers, on a fresh database of the
// statement-counting cluster (pgCount.ts), after one untimed round. The embedded store is not
// measured here (pgCeilingPhase.ts reads the ratio): this tells what to cut. Per statement, its WAL
// bytes and full-page images (FPI: a checkpoint's first touch of a page) a run; the rows' stored
// sizes; the round's WAL by relation and record type (pg_walinspect: which table, index or TOAST
// table each record's first block is in). PG_RUN_COST_SQL=<file> writes the costly statements' full
// texts there; PG_RUN_COST_NESTED=1 counts the statements inside functions too; PG_RUN_COST_EXPLAIN=<file>
// copies every statement's plan with each node's time, buffers and WAL there (auto_explain: slow);
// PG_RUN_COST_SETUP_SQL=<sql> runs on the migrated database before the rounds (a setting tried).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { countingPostgres } from './pgCount.ts';
import { treeCpu } from './proc.ts';
import { measureReplicas, REPLICA_RUNS } from './replicas.ts';
import { withAdmin } from '../../test/support/postgres.ts';

interface Snapshot {
  pgCpu: number;
  commits: number;
  rollbacks: number;
  walRecords: number;
  walBytes: number;
  walFsyncs: number;
  /** CPU of the replicas' LISTEN sessions (the backends that deliver each NOTIFY to a replica), seconds. */
  listenCpu: number;
  /** Where the WAL is (pg_walinspect reads the round's records between two of these). */
  lsn: string;
}

const langgraph = process.argv.includes('--langgraph');
const replicaCount = Number(process.argv.find((a) => a.startsWith('--replicas='))?.slice('--replicas='.length) ?? 1);
const rounds = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 3);
// another built tree's servers (a git worktree of an earlier commit, its node_modules linked), measured the same way
const root = process.argv.find((a) => a.startsWith('--root='))?.slice('--root='.length);
const graph = langgraph ? BENCH_GRAPH : PLAIN_GRAPH;
const workers = langgraph ? undefined : '0';

fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'pg-run-cost-'));
const counter = await countingPostgres();
const url = await counter.freshDatabase();
await withAdmin(url, (c) => c.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect'));
const dataDirectory = await withAdmin(
  url,
  async (c) => (await c.query<{ setting: string }>(`SELECT setting FROM pg_settings WHERE name = 'data_directory'`)).rows[0].setting,
);
const postmaster = Number(fs.readFileSync(path.join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
// PG_RUN_COST_EXPLAIN=<file>: every statement's plan, with each node's time, buffers and WAL
// (auto_explain), logged by the server and copied there at the end (slows every statement)
const explainTo = process.env.PG_RUN_COST_EXPLAIN;
// PG_RUN_COST_NESTED=1: the statements inside functions (agentplane_json_set's, …) counted too (pg_stat_statements.track = all)
if (process.env.PG_RUN_COST_NESTED)
  await withAdmin(url, async (c) => {
    const db = (await c.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db;
    await c.query(`ALTER DATABASE ${db} SET pg_stat_statements.track = 'all'`);
  });
if (explainTo)
  await withAdmin(url, async (c) => {
    const db = (await c.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db;
    for (const [name, value] of [
      ['session_preload_libraries', 'auto_explain'],
      ['auto_explain.log_min_duration', '0'],
      ['auto_explain.log_analyze', 'on'],
      ['auto_explain.log_buffers', 'on'],
      ['auto_explain.log_wal', 'on'],
      ['auto_explain.log_nested_statements', 'on'],
    ])
      await c.query(`ALTER DATABASE ${db} SET ${name} = '${value}'`);
  });

async function snapshot(): Promise<Snapshot> {
  return withAdmin(url, async (c) => {
    const db = (
      await c.query<{ commits: string; rollbacks: string }>(
        'SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = current_database()',
      )
    ).rows[0];
    const wal = (await c.query<{ wal_records: string; wal_bytes: string }>('SELECT wal_records, wal_bytes FROM pg_stat_wal')).rows[0];
    const io = (await c.query<{ fsyncs: string | null }>(`SELECT sum(fsyncs) AS fsyncs FROM pg_stat_io WHERE object = 'wal'`)).rows[0];
    const listening = await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'`);
    return {
      // the statistics are sent at each backend's transaction end, at most once a second: the
      // counts are read after a pause (see the caller)
      pgCpu: treeCpu(postmaster),
      commits: Number(db.commits),
      rollbacks: Number(db.rollbacks),
      walRecords: Number(wal.wal_records),
      walBytes: Number(wal.wal_bytes),
      walFsyncs: Number(io.fsyncs ?? 0),
      listenCpu: listening.rows.reduce((sum, r) => sum + treeCpu(r.pid), 0),
      lsn: (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn,
    };
  });
}

const processes: Agentplane[] = [];
try {
  for (let r = 0; r < replicaCount; r += 1)
    processes.push(
      await startAgentplane({
        dataDir: path.join(work, `data-${r}`),
        workDir: path.join(work, `work-${r}`),
        env: { DATABASE_URL: url, AGENTPLANE_RUN_WORKERS: workers },
        root,
      }),
    );
  // PG_RUN_COST_SETUP_SQL=<sql>: run on the migrated database before the rounds (a storage setting tried without a migration)
  if (process.env.PG_RUN_COST_SETUP_SQL) await withAdmin(url, (c) => c.query(process.env.PG_RUN_COST_SETUP_SQL!));
  const quiet = () => undefined;
  await measureReplicas(processes, graph, workers ?? 'default', quiet);
  for (let round = 0; round < rounds; round += 1) {
    let before: Snapshot | undefined;
    let pgCpuAfter = 0;
    const figure = await measureReplicas(processes, graph, workers ?? 'default', (line) => console.log(line), undefined, {
      statements: {
        reset: async () => {
          await counter.reset(url);
          await new Promise((resolve) => setTimeout(resolve, 1100));
          before = await snapshot();
        },
        count: async () => {
          pgCpuAfter = treeCpu(postmaster);
          return counter.count(url);
        },
      },
    });
    // the other counters are flushed by the backends within a second of their last transaction
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await snapshot();
    const per = (x: number) => (x / REPLICA_RUNS).toFixed(2);
    console.log(
      `round ${round + 1}: ${figure.runsPerSecond} runs/s; per run: replica CPU ${figure.cpuMsPerRun} ms, PostgreSQL CPU ${(((pgCpuAfter - before!.pgCpu) / REPLICA_RUNS) * 1000).toFixed(2)} ms ` +
        `(its LISTEN sessions ${(((after.listenCpu - before!.listenCpu) / REPLICA_RUNS) * 1000).toFixed(2)} ms), ` +
        `${per(after.commits - before!.commits)} commits (+${per(after.rollbacks - before!.rollbacks)} rollbacks), ${per(after.walRecords - before!.walRecords)} WAL records, ` +
        `${(((after.walBytes - before!.walBytes) / REPLICA_RUNS) | 0).toLocaleString('en')} WAL bytes, ${per(after.walFsyncs - before!.walFsyncs)} WAL flushes, ${figure.statementsPerRun} statements`,
    );
    const costly = await withAdmin(url, (c) =>
      c.query<{ calls: string; ms: number; wal: string; fpi: string; blocks: string; query: string }>(
        `SELECT calls, total_exec_time + total_plan_time AS ms, wal_bytes AS wal, wal_fpi AS fpi, shared_blks_hit + shared_blks_read AS blocks,
                regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'
          ORDER BY total_exec_time + total_plan_time DESC LIMIT 12`,
      ),
    );
    // what each row a run writes weighs as stored (after compression) and as text: the end's WAL is mostly these rows rewritten
    const sizes = await withAdmin(url, (c) =>
      c.query<{ t: string; stored: number | null; text: number | null }>(
        ['threads', 'runs', 'plain_checkpoints', 'plain_heads']
          .map((t) => `SELECT '${t}' AS t, avg(pg_column_size(doc))::float8 AS stored, avg(octet_length(doc::text))::float8 AS text FROM agentplane_${t}`)
          .join(' UNION ALL '),
      ),
    );
    console.log(
      `    rows' docs, bytes stored / as text: ${sizes.rows.map((r) => `${r.t} ${Math.round(r.stored ?? 0)} / ${Math.round(r.text ?? 0)}`).join(', ')}`,
    );
    // the round's WAL, by what wrote it: each record's first block's relation (a TOAST table or
    // its index named by the table it serves), its resource manager and record type
    const wal = await withAdmin(url, (c) =>
      c.query<{ rel: string; kind: string; n: string; bytes: string; fpi: string }>(
        `WITH blocks AS (SELECT start_lsn, relfilenode FROM pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false) WHERE block_id = 0),
              records AS (SELECT r.resource_manager, r.record_type, r.record_length, r.fpi_length, b.relfilenode
                            FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) r LEFT JOIN blocks b ON b.start_lsn = r.start_lsn),
              named AS (SELECT k.relfilenode, coalesce(o.relname || ' (toast' || CASE WHEN k.relkind = 'i' THEN ' index' ELSE '' END || ')', k.relname) AS rel
                          FROM pg_class k
                          LEFT JOIN pg_index ti ON ti.indexrelid = k.oid AND k.relnamespace = 'pg_toast'::regnamespace
                          LEFT JOIN pg_class o ON o.reltoastrelid = coalesce(ti.indrelid, CASE WHEN k.relnamespace = 'pg_toast'::regnamespace THEN k.oid END))
         SELECT coalesce(n.rel, CASE WHEN r.relfilenode IS NULL THEN '-' ELSE r.relfilenode::text END) AS rel, r.resource_manager || ' ' || r.record_type AS kind,
                count(*) AS n, sum(r.record_length) AS bytes, sum(r.fpi_length) AS fpi
           FROM records r LEFT JOIN named n ON n.relfilenode = r.relfilenode
          GROUP BY 1, 2 ORDER BY 4 DESC LIMIT 30`,
        [before!.lsn, after.lsn],
      ),
    );
    console.log('    WAL by relation and record type, a run: bytes (records)');
    for (const w of wal.rows)
      console.log(`    ${((Number(w.bytes) / REPLICA_RUNS) | 0).toString().padStart(6)} (${(Number(w.n) / REPLICA_RUNS).toFixed(2)})  ${w.rel}  ${w.kind}`);
    // the full texts of the costly statements (the lines below cut them at 150 characters)
    if (process.env.PG_RUN_COST_SQL) fs.writeFileSync(process.env.PG_RUN_COST_SQL, costly.rows.map((q) => q.query).join('\n\n'));
    for (const q of costly.rows)
      console.log(
        `    ${((q.ms / REPLICA_RUNS) * 1000).toFixed(0).padStart(5)} µs/run  ${(Number(q.calls) / REPLICA_RUNS).toFixed(2)} calls/run  ` +
          `${((Number(q.wal) / REPLICA_RUNS) | 0).toString().padStart(6)} WAL bytes/run ${(Number(q.fpi) / REPLICA_RUNS).toFixed(2).padStart(5)} FPI/run  ${(Number(q.blocks) / REPLICA_RUNS).toFixed(0).padStart(4)} buffers/run  ${q.query.slice(0, 150)}`,
      );
  }
} finally {
  await Promise.all(processes.map((ap) => ap.stop()));
  if (explainTo) fs.copyFileSync(path.join(path.dirname(dataDirectory), 'server.log'), explainTo);
  await counter.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
