// Instructions a plain-echo run on one thread, by thread of the server, counted by callgrind (issue
// 91): `npx tsx scripts/bench/runInstructions.ts <root>,<root>… [passes] [runs]`. Each tree's server
// runs under valgrind with counting off while it starts and takes the runs phase's warm-up
// (runs.ts' WARM_UP, its 100 threads cut to 20), then, trees in turns, 20 uncounted runs on a fresh
// thread and `runs` counted ones on another (enqueueAndDrain: the bench's one-thread round). Thread
// 1 is the main thread; the run worker is the busiest other. INSTR_THREADS=100: the counted
// round is the bench's 100-thread one instead (that many threads, RUNS_PER_THREAD runs each: `runs`
// is then ignored), its uncounted one before it 2 runs a thread. Load-independent, unlike
// freshThreadsCpu.ts' CPU times on a shared machine. KEEP=<dir>: the dumps kept (with PERF_PROF=1
// the server runs with --perf-basic-prof, so /tmp/perf-<pid>.map names its JIT code).
// STORES=embedded,postgres: each root once per store (issue 87: what a run costs the replica on
// PostgreSQL against the embedded store), run workers off as the pgceiling phase has the plain
// graph, PostgreSQL a fresh database of the statement-counting cluster (pgCount.ts).
// INSTR_GRAPH=langgraph: the runs are the LangGraph echo graph's (the bench's shared graph, issue
// 86) instead of the plain echo's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startAgentplane, type Agentplane } from './agentplane.ts';
import { enqueueAndDrain, RUNS_PER_THREAD, WARM_UP } from './runs.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { untilIdle } from './writes.ts';
import { countingPostgres } from './pgCount.ts';

const [rootsArg, passesArg = '3', runsArg = '100'] = process.argv.slice(2);
const roots = rootsArg!.split(',');
const passes = Number(passesArg);
const threads = Number(process.env.INSTR_THREADS ?? 1);
const runs = threads === 1 ? Number(runsArg) : threads * RUNS_PER_THREAD;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'run-instructions-'));
const cg = (ap: Agentplane, ...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(ap.pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
function dumpByThread(ap: Agentplane, outFile: string): Map<number, number> {
  cg(ap, '--dump');
  const dir = path.dirname(outFile);
  const out = new Map<number, number>();
  for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(outFile) + '.'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const t = /^(?:totals|summary):\s*(\d+)/m.exec(text);
    const th = /^thread:\s*(\d+)/m.exec(text);
    if (t) out.set(Number(th?.[1] ?? 0), (out.get(Number(th?.[1] ?? 0)) ?? 0) + Number(t[1]));
    if (process.env.KEEP) fs.renameSync(path.join(dir, f), path.join(process.env.KEEP, `${path.basename(path.dirname(outFile))}-${Date.now()}-${f}`));
    else fs.rmSync(path.join(dir, f));
  }
  return out;
}
/**
 * Under callgrind on a loaded machine a 100-thread round's last joins can wait past fetch's
 * 300-s headers timeout (the run is queued behind the others): fetch's dispatcher (Node's own
 * undici Agent, made on the first fetch) replaced by one of its kind with no timeouts.
 */
function noHeadersTimeout(): void {
  const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
  const global = globalThis as unknown as Record<symbol, object | undefined>;
  const made = global[DISPATCHER];
  if (made) global[DISPATCHER] = new (made.constructor as new (options: object) => object)({ headersTimeout: 0, bodyTimeout: 0 });
  else console.warn('fetch has no dispatcher yet: its timeouts stay');
}
const stores = process.env.STORES?.split(',');
const counter = stores?.includes('postgres') ? await countingPostgres() : undefined;
const servers: { root: string; ap: Agentplane; outFile: string; label: string }[] = [];
try {
  for (const [i, [root, store]] of roots.flatMap((root) => (stores ?? ['']).map((store) => [root, store] as const)).entries()) {
    const dir = path.join(work, String(i));
    fs.mkdirSync(dir, { recursive: true });
    const outFile = path.join(dir, 'cg');
    const ap = await startAgentplane({
      root,
      dataDir: path.join(dir, 'data'),
      workDir: dir,
      ...(store && { env: { DATABASE_URL: store === 'postgres' ? await counter!.freshDatabase() : undefined, AGENTPLANE_RUN_WORKERS: '0' } }),
      nodeArgs: ['--no-memory-reducer', ...(process.env.PERF_PROF ? ['--perf-basic-prof'] : [])],
      wrapper: {
        command: 'valgrind',
        args: [
          '--tool=callgrind',
          '--instr-atstart=no',
          '--separate-threads=yes',
          `--callgrind-out-file=${outFile}`,
          '--dump-line=no',
          '--compress-strings=no',
        ],
        startTimeoutMs: 600_000,
      },
    });
    servers.push({ root, ap, outFile, label: `${path.basename(root)}${store && ` ${store}`}` });
  }
  const ts = servers.map((s) => ({
    server: 'agentplane' as const,
    url: s.ap.url,
    headers: s.ap.headers,
    assistant: process.env.INSTR_GRAPH === 'langgraph' ? BENCH_GRAPH : PLAIN_GRAPH,
  }));
  noHeadersTimeout();
  for (const t of ts) for (const [a, b] of WARM_UP) await enqueueAndDrain(t, a === 100 ? 20 : a, b);
  for (const s of servers) await untilIdle(s.ap, 300_000);
  for (let p = 0; p < passes; p++)
    for (const i of p % 2 ? [...servers.keys()].reverse() : [...servers.keys()]) {
      const s = servers[i]!;
      await enqueueAndDrain(ts[i]!, threads, threads === 1 ? 20 : 2);
      cg(s.ap, '--instr=on');
      cg(s.ap, '--zero');
      const d = await enqueueAndDrain(ts[i]!, threads, threads === 1 ? runs : RUNS_PER_THREAD);
      const by = dumpByThread(s.ap, s.outFile);
      cg(s.ap, '--instr=off');
      const all = [...by.values()].reduce((a, b) => a + b, 0);
      const sorted = [...by].sort((a, b) => b[1] - a[1]);
      console.log(
        `pass ${p} ${s.label} failed ${d.failed}: all ${Math.round(all / runs)} a run; main(1) ${Math.round((by.get(1) ?? 0) / runs)}; threads ${sorted
          .slice(0, 6)
          .map(([t, n]) => `${t}:${Math.round(n / runs)}`)
          .join(' ')}`,
      );
    }
} finally {
  await Promise.all(servers.map((s) => s.ap.stop()));
  await counter?.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
