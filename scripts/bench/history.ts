// `npx tsx scripts/bench/history.ts [runs]`: the embedded store with a long history (issue 91).
// A server on a fresh data directory runs `runs` (default 100,000; HISTORY_RUNS too) runs of the
// shipped `agent` graph, 10 a thread, HISTORY_CONCURRENCY (default 8) at a time; then it checks
// that its heap and RSS are within 1.5× of what it held fresh plus the configured cache of paged
// values (AGENTPLANE_STORE_CACHE_MB, default 64), that old threads' states and histories read as
// fast at p99 as 2× a hot one's, and that a restart on the directory answers /ok within 1 s.
// The whole of it takes about an hour at 100,000 runs; `HISTORY_RUNS=2000` takes a minute.
// Not part of `npm run bench`'s default phases: run it alone.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, expectStatus, request, startAgentplane, type Agentplane } from './agentplane.ts';
import { delay } from './proc.ts';
import { RUNS_PER_THREAD, agentRuns } from './agentRuns.ts';

const RUNS = Number(process.argv[2] ?? process.env.HISTORY_RUNS ?? 100_000);
const CONCURRENCY = Number(process.env.HISTORY_CONCURRENCY ?? 8);
const CACHE_MB = Number(process.env.AGENTPLANE_STORE_CACHE_MB ?? 64);
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;

async function heapUsed(ap: Agentplane): Promise<number> {
  const res = await request(`${ap.url}/metrics`, { headers: ap.headers });
  const line = /^nodejs_heap_size_used_bytes\s+(\d+(?:\.\d+)?)/m.exec(res.text);
  return line ? Number(line[1]) : NaN;
}

/** Heap and RSS once the server has collected (it collects when idle: src/runtime/idle/idleCollector.ts). */
async function settled(ap: Agentplane): Promise<{ heap: number; rss: number }> {
  await delay(5_000);
  return { heap: await heapUsed(ap), rss: ap.rss() };
}

async function start(dataDir: string, work: string): Promise<Agentplane> {
  return startAgentplane({ dataDir, workDir: work, graphs: { agent: `${path.join(ROOT, 'examples/graphs/agent.ts')}:agent` } });
}

async function readTimes(ap: Agentplane, threads: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const threadId of threads) {
    for (const pathname of [`/threads/${threadId}/state`, `/threads/${threadId}/history`]) {
      const started = performance.now();
      const res = await ap.api(pathname, pathname.endsWith('history') ? { method: 'POST', json: { limit: 10 } } : {});
      times.push(performance.now() - started);
      expectStatus(`read ${pathname}`, res, 200);
    }
  }
  return times;
}

fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'history-'));
const dataDir = path.join(work, 'data');
let ap = await start(dataDir, work);
const threads: string[] = [];
try {
  const fresh = await settled(ap);
  console.log(`fresh: heap ${mb(fresh.heap)} MB, RSS ${mb(fresh.rss)} MB`);
  const started = performance.now();
  await agentRuns(ap, RUNS, CONCURRENCY, (thread, threadId) => {
    threads.push(threadId);
    if (thread % 100 === 0) console.log(`  ${Math.min(RUNS, (thread + 1) * RUNS_PER_THREAD)} runs, RSS ${mb(ap.rss())} MB`);
  });
  const seconds = (performance.now() - started) / 1000;
  const full = await settled(ap);
  const bound = (fresh: number) => 1.5 * fresh + CACHE_MB * 1048576;
  console.log(`${RUNS} runs in ${seconds.toFixed(0)} s (${(RUNS / seconds).toFixed(1)} runs/s)`);
  console.log(`heap ${mb(full.heap)} MB (bound ${mb(bound(fresh.heap))}), RSS ${mb(full.rss)} MB (bound ${mb(bound(fresh.rss))})`);
  const hot = threads.slice(-1);
  await readTimes(ap, hot);
  const hotTimes: number[] = [];
  for (let i = 0; i < 100; i += 1) hotTimes.push(...(await readTimes(ap, hot)));
  const old = threads.slice(0, 200);
  const oldTimes = await readTimes(ap, old);
  console.log(
    `reads: hot p99 ${p(hotTimes, 0.99).toFixed(2)} ms, old p99 ${p(oldTimes, 0.99).toFixed(2)} ms (${(p(oldTimes, 0.99) / p(hotTimes, 0.99)).toFixed(2)}×)`,
  );
  await ap.stop();
  const restarted = performance.now();
  ap = await start(dataDir, work);
  const ok = await request(`${ap.url}/ok`);
  // startAgentplane waits until the graphs are served, which a start without history takes too
  console.log(`restart to its graphs served and /ok: ${(performance.now() - restarted).toFixed(0)} ms (status ${ok.status})`);
  const verdicts = {
    heap: full.heap <= bound(fresh.heap),
    rss: full.rss <= bound(fresh.rss),
    oldReads: p(oldTimes, 0.99) <= 2 * p(hotTimes, 0.99),
  };
  console.log(JSON.stringify({ runs: RUNS, runsPerSecond: RUNS / seconds, freshMB: mb(fresh.rss), fullMB: mb(full.rss), verdicts }));
} finally {
  await ap.stop();
  if (!process.env.HISTORY_KEEP) fs.rmSync(work, { recursive: true, force: true });
}
