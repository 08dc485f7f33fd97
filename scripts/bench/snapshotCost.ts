// `npx tsx scripts/bench/snapshotCost.ts <other tree> [pairs] [one-thread rounds]` (issue 91): what
// the embedded store's background snapshot costs, in this tree and another (a built checkout of a
// baseline, `292602a8` for the tree before paging). For each tree a server of that tree is given
// the bench's runs phase up to its first snapshot (runs.ts: its warm-up, then `rounds` one-thread
// rounds, default 2: a journal just under the 32-MB threshold) and killed with SIGKILL, so the
// journal stays whole. Then, in alternating turns, a copy of each data directory is opened by its
// own tree's store module in this process, loaded, and snapshotted (`flush()`: what the server's
// snapshot does once the journal passes its threshold), measured alone: the main thread's CPU
// (its schedstat), the process's (V8's helpers and libuv's pool, which write the files), minor
// page faults, the files and bytes the snapshot left. In the runs phase that snapshot falls in the
// third one-thread round (freshThreadsCpu.ts FRESH_CPU_SCENARIO=bench-one shows it per round).
// SNAPSHOT_SAME_DATA=1: both trees snapshot this tree's data directory (two trees of one journal
// format: the same records, shards and files, for an A/B of a change to the snapshot alone).
// SNAPSHOT_DATA=<dir> (with SNAPSHOT_SAME_DATA=1): the data directory is kept there, and taken from
// there when it exists already, so that A/B runs after the first skip the runs phase.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, startAgentplane } from './agentplane.ts';
import { sdkRuns } from './freshPeer.ts';
import { BENCH_GRAPH } from './graph.ts';
import { ONE_THREAD_RUNS, WARM_UP } from './runs.ts';

const [otherArg, pairsArg = '5', roundsArg = '2'] = process.argv.slice(2);
if (!otherArg) throw new Error('usage: snapshotCost.ts <other tree> [pairs] [one-thread rounds]');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-cost-'));
const trees = [
  { name: 'this tree', root: ROOT },
  { name: path.basename(path.resolve(otherArg)), root: path.resolve(otherArg) },
];
const load = () => os.loadavg()[0]!.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const schedstat = `/proc/${process.pid}/task/${process.pid}/schedstat`;
const mainCpuMs = () => Number(fs.readFileSync(schedstat, 'latin1').split(' ', 1)[0]) / 1e6;

/** A data directory as the runs phase leaves it just before its first snapshot. */
async function historyOf(root: string, dir: string): Promise<void> {
  const ap = await startAgentplane({ dataDir: dir, workDir: `${dir}-work`, root });
  try {
    const sdk = new Client({ apiUrl: ap.url, defaultHeaders: ap.headers, callerOptions: { maxRetries: 0 } });
    for (const [threads, perThread] of WARM_UP) await sdkRuns(sdk, BENCH_GRAPH, threads, perThread);
    for (let i = 0; i < Number(roundsArg); i += 1) await sdkRuns(sdk, BENCH_GRAPH, 1, ONE_THREAD_RUNS);
  } finally {
    // killed, not stopped: a stop would take the snapshot measured below
    process.kill(ap.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  fs.rmSync(path.join(dir, 'LOCK'), { force: true });
}

function filesUnder(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      files += 1;
      bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
    }
  return { files, bytes };
}

interface StoreLike {
  loadInBackground?(): void;
  loaded?(): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

async function snapshot(tree: (typeof trees)[number], data: string, turn: number) {
  const dir = path.join(work, `copy-${turn}`);
  execFileSync('cp', ['-r', data, dir]);
  const { openJournalStore } = (await import(pathToFileURL(path.join(tree.root, 'src/adapters/embedded/journalStore.ts')).href)) as {
    openJournalStore(options: object): Promise<StoreLike>;
  };
  const store = await openJournalStore({ dataDir: dir, loadAfterMs: null });
  if (store.loadInBackground) {
    store.loadInBackground();
    await store.loaded!();
  }
  const before = { main: mainCpuMs(), all: process.cpuUsage(), faults: process.resourceUsage().minorPageFault, at: performance.now() };
  await store.flush();
  const all = process.cpuUsage(before.all);
  const figure = {
    mainMs: mainCpuMs() - before.main,
    processMs: (all.user + all.system) / 1000,
    faults: process.resourceUsage().minorPageFault - before.faults,
    ms: performance.now() - before.at,
    ...filesUnder(path.join(dir, 'collections')),
  };
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return figure;
}

const data = new Map<string, string>();
const same = process.env.SNAPSHOT_SAME_DATA === '1';
const kept = same ? process.env.SNAPSHOT_DATA : undefined;
for (const tree of same ? trees.slice(0, 1) : trees) {
  const dir = kept ? path.resolve(kept) : path.join(work, `data-${trees.indexOf(tree)}`);
  if (!kept || !fs.existsSync(dir)) await historyOf(tree.root, dir);
  data.set(tree.name, dir);
  console.log(`${tree.name}: journal ${filesUnder(path.join(dir, 'journal')).bytes} bytes; load ${load()}`);
}
const figures = new Map<string, Awaited<ReturnType<typeof snapshot>>[]>(trees.map((t) => [t.name, []]));
let turn = 0;
for (let pair = 0; pair < Number(pairsArg); pair += 1)
  for (const tree of pair % 2 ? [...trees].reverse() : trees) {
    const f = await snapshot(tree, data.get(same ? trees[0]!.name : tree.name)!, turn++);
    figures.get(tree.name)!.push(f);
    console.log(
      `pair ${pair + 1} ${tree.name}: main ${f.mainMs.toFixed(0)} ms, process ${f.processMs.toFixed(0)} ms, faults ${f.faults}, ${f.ms.toFixed(0)} ms; ${f.files} files, ${f.bytes} bytes; load ${load()}`,
    );
  }
fs.rmSync(work, { recursive: true, force: true });
for (const [name, fs_] of figures)
  console.log(
    `${name}: median main ${median(fs_.map((f) => f.mainMs)).toFixed(0)} ms (${fs_.map((f) => f.mainMs.toFixed(0)).join(', ')}), process ${median(fs_.map((f) => f.processMs)).toFixed(0)} ms, faults ${median(fs_.map((f) => f.faults))}, ${fs_[0]!.files} files, ${fs_[0]!.bytes} bytes`,
  );
console.log(`load ${load()}`);
