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
import { ROOT, request, type Agentplane } from './agentplane.ts';
import { bound, mb, oldAgainstHot, settled, startHistoryServer } from './historyMeasures.ts';
import { RUNS_PER_THREAD, agentRuns } from './agentRuns.ts';

const RUNS = Number(process.argv[2] ?? process.env.HISTORY_RUNS ?? 100_000);
const CONCURRENCY = Number(process.env.HISTORY_CONCURRENCY ?? 8);
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'history-'));
const dataDir = path.join(work, 'data');
let ap: Agentplane = await startHistoryServer(dataDir, work);
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
  console.log(`${RUNS} runs in ${seconds.toFixed(0)} s (${(RUNS / seconds).toFixed(1)} runs/s)`);
  console.log(`heap ${mb(full.heap)} MB (bound ${mb(bound(fresh.heap))}), RSS ${mb(full.rss)} MB (bound ${mb(bound(fresh.rss))})`);
  const reads = await oldAgainstHot(ap, threads.at(-1)!, threads.slice(0, 200));
  console.log(`reads: hot p99 ${reads.hot.toFixed(2)} ms, old p99 ${reads.old.toFixed(2)} ms (${(reads.old / reads.hot).toFixed(2)}×)`);
  await ap.stop();
  const restarted = performance.now();
  ap = await startHistoryServer(dataDir, work);
  const ok = await request(`${ap.url}/ok`);
  // startAgentplane waits until the graphs are served, which a start without history takes too
  console.log(`restart to its graphs served and /ok: ${(performance.now() - restarted).toFixed(0)} ms (status ${ok.status})`);
  const verdicts = {
    heap: full.heap <= bound(fresh.heap),
    rss: full.rss <= bound(fresh.rss),
    oldReads: reads.old <= 2 * reads.hot,
  };
  console.log(JSON.stringify({ runs: RUNS, runsPerSecond: RUNS / seconds, freshMB: mb(fresh.rss), fullMB: mb(full.rss), verdicts }));
} finally {
  await ap.stop();
  if (!process.env.HISTORY_KEEP) fs.rmSync(work, { recursive: true, force: true });
}
