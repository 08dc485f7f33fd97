// `npx tsx scripts/bench/pgPlans.ts [--langgraph] [--root=<tree>]`: how PostgreSQL executes each
// statement of the run path (issue 87), from the inside: one replica on a fresh database of the
// statement-counting cluster (pgCount.ts) is given the replicas workload (replicas.ts: 400 runs
// over 20 threads, plain echo with run workers off, or the LangGraph echo) twice, with
// auto_explain logging every statement's plan as executed (rows, buffers, time) and
// pg_stat_statements counting its plannings. For each statement executed a dozen times or more
// in the second round it prints the executions, the median logged duration (lock waits
// included) and the median buffers read, and writes the plan of its median execution to
// .bench/pg-plans/<n>.txt; then each statement's plannings (0: PostgreSQL kept a plan). A plan that reads hundreds of
// buffers for a few rows is where to look (a bitmap scan over dead index entries, a join the
// planner turned into a scan of a whole table).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { countingPostgres } from './pgCount.ts';
import { measureReplicas } from './replicas.ts';
import { withAdmin } from '../../test/support/postgres.ts';

const langgraph = process.argv.includes('--langgraph');
const root = process.argv.find((a) => a.startsWith('--root='))?.slice('--root='.length);
const workers = langgraph ? undefined : '0';
const out = path.join(ROOT, '.bench', 'pg-plans');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'pg-plans-run-'));

const counter = await countingPostgres();
try {
  const url = await counter.freshDatabase();
  // settings of the database, read by each new session: the replica's connections are opened after
  const log = await withAdmin(url, async (c) => {
    const db = (await c.query<{ name: string }>('SELECT current_database() AS name')).rows[0].name;
    for (const setting of [
      `session_preload_libraries = 'auto_explain'`,
      `auto_explain.log_min_duration = 0`,
      `auto_explain.log_analyze = on`,
      `auto_explain.log_buffers = on`,
      `auto_explain.log_nested_statements = on`,
      `pg_stat_statements.track_planning = on`,
    ])
      await c.query(`ALTER DATABASE ${db} SET ${setting}`);
    const dir = (await c.query<{ setting: string }>(`SELECT setting FROM pg_settings WHERE name = 'data_directory'`)).rows[0].setting;
    // ownCluster's server log (test/support/postgres.ts): beside the data directory
    return path.join(path.dirname(dir), 'server.log');
  });
  const ap = await startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, env: { DATABASE_URL: url, AGENTPLANE_RUN_WORKERS: workers }, root });
  let from = 0;
  try {
    const graph = langgraph ? BENCH_GRAPH : PLAIN_GRAPH;
    // the first round warms the connections and their prepared statements; the second is read
    await measureReplicas([ap], graph, workers ?? 'default', () => undefined);
    await measureReplicas([ap], graph, workers ?? 'default', (line) => console.log(line), undefined, {
      statements: {
        reset: async () => {
          await counter.reset(url);
          from = fs.statSync(log).size;
        },
        count: () => counter.count(url),
      },
    });
  } finally {
    await ap.stop();
  }
  const plannings = await withAdmin(url, (c) =>
    c.query<{ query: string; calls: string; plans: string }>(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, plans FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls >= 12 ORDER BY calls DESC`,
    ),
  );
  const text = fs.readFileSync(log, 'utf8').slice(from);
  const byStatement = new Map<string, { ms: number; buffers: number; plan: string }[]>();
  for (const entry of text.split(/\n(?=\S[^\n]*LOG: {2}duration: )/)) {
    const duration = /LOG: {2}duration: ([\d.]+) ms {2}plan:/.exec(entry);
    const query = /Query Text: ([\s\S]*?)\n\t(?:Query Parameters|[A-Z][a-zA-Z ]+ {2}\(cost)/.exec(entry);
    if (!duration || !query) continue;
    const key = query[1].replace(/\s+/g, ' ').trim();
    const buffers = /\n\t {2}Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(entry);
    const list = byStatement.get(key) ?? [];
    list.push({ ms: Number(duration[1]), buffers: buffers ? Number(buffers[1]) + Number(buffers[2] ?? 0) : 0, plan: entry });
    byStatement.set(key, list);
  }
  const median = <T>(xs: T[], by: (x: T) => number) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)];
  const rows = [...byStatement]
    .filter(([, list]) => list.length >= 12)
    .sort((a, b) => b[1].length * median(b[1], (x) => x.ms).ms - a[1].length * median(a[1], (x) => x.ms).ms);
  for (const [n, [query, list]] of rows.entries()) {
    const typical = median(list, (x) => x.ms);
    fs.writeFileSync(path.join(out, `${n + 1}.txt`), typical.plan);
    console.log(
      `${String(n + 1).padStart(2)}. ${String(list.length).padStart(5)} calls, median ${typical.ms.toFixed(3)} ms, ` +
        `${median(list, (x) => x.buffers).buffers} buffers  ${query.slice(0, 120)}`,
    );
  }
  console.log(`the median execution's plan of each: ${path.relative(ROOT, out)}/<n>.txt`);
  console.log('plannings in the measured round (0: the plan kept from an earlier execution):');
  for (const r of plannings.rows) console.log(`  ${r.calls.padStart(5)} calls, ${r.plans.padStart(5)} plannings  ${r.query.slice(0, 120)}`);
} finally {
  await counter.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
