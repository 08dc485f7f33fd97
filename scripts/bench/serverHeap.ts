// `npx tsx scripts/bench/serverHeap.ts [runs] [top]` (issue 91): what a server's main heap holds
// more of after `runs` runs of the shipped `agent` graph (default 2,000, 10 a thread, as
// history.ts makes them) than fresh, per run, by constructor (heapSnapshotDiff.ts's tally): the
// server is started with --heapsnapshot-signal and sent it once settled fresh and once after the
// runs; heap used and RSS beside. Where history.ts says whether the bound holds, this says what
// fills the heap. SERVER_HEAP_KEEP=<dir> keeps the two snapshots there (fresh.heapsnapshot,
// after.heapsnapshot) for a look at what holds what.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, request, startAgentplane, type Agentplane } from './agentplane.ts';
import { delay } from './proc.ts';
import { agentRuns } from './agentRuns.ts';
import { grown, snapshotOf, type Tally } from './heapSnapshotDiff.ts';

const RUNS = Number(process.argv[2] ?? 2_000);
const TOP = Number(process.argv[3] ?? 25);
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);

const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'server-heap-'));
const snapshots = path.join(work, 'snapshots');
fs.mkdirSync(snapshots);

async function heapUsed(ap: Agentplane): Promise<number> {
  const res = await request(`${ap.url}/metrics`, { headers: ap.headers });
  return Number(/^nodejs_heap_size_used_bytes\s+(\S+)/m.exec(res.text)?.[1] ?? NaN);
}

/** A heap snapshot of the server, tallied (SERVER_HEAP_KEEP: kept there as `name`). */
function snapshot(ap: Agentplane, name: string): Promise<Tally> {
  return snapshotOf(ap.pid, snapshots, (file) => {
    if (process.env.SERVER_HEAP_KEEP) fs.copyFileSync(file, path.join(process.env.SERVER_HEAP_KEEP, `${name}.heapsnapshot`));
  });
}

const ap = await startAgentplane({
  dataDir: path.join(work, 'data'),
  workDir: work,
  graphs: { agent: `${path.join(ROOT, 'examples/graphs/agent.ts')}:agent` },
  nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`],
});
try {
  await delay(5_000);
  const fresh = { heap: await heapUsed(ap), rss: ap.rss(), tally: await snapshot(ap, 'fresh') };
  await agentRuns(ap, RUNS, 8);
  await delay(5_000);
  const full = { heap: await heapUsed(ap), rss: ap.rss(), tally: await snapshot(ap, 'after') };
  console.log(`fresh: heap ${mb(fresh.heap)} MB, RSS ${mb(fresh.rss)} MB; after ${RUNS} runs: heap ${mb(full.heap)} MB, RSS ${mb(full.rss)} MB`);
  const rows = grown(fresh.tally, full.tally);
  console.log(`all nodes: ${Math.round(rows.reduce((n, row) => n + row.bytes, 0) / RUNS)} bytes a run`);
  for (const row of rows.slice(0, TOP))
    console.log(`${String(Math.round(row.bytes / RUNS)).padStart(8)} B ${(row.count / RUNS).toFixed(2).padStart(8)} × ${row.key}`);
} finally {
  await ap.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
