// `npx tsx scripts/bench/restartBlocks.ts <data dir with history> [rounds] [baseline ref]` (issue
// 91): what the first requests after a restart on a long history wait behind. In alternating
// rounds it starts the server of this tree and, when a ref is given, of that ref's built worktree
// (baseline.ts) on the directory (a kept historyClone.ts one: `HISTORY_KEEP=1 historyClone.ts`,
// .bench/history-clone-*/data), with restartRecorder.mjs preloaded; it waits for the graphs to be
// served (the shipped agent graph's assistant, as historyClone.ts does), asks /ok, then asks /ok
// every 20 ms until a search of the threads answers (that waits for the threads' records: the
// history's load is over). Per start it prints: spawn to graphs served, to /ok, to the search;
// the slowest /ok meanwhile; from the recorder, the main thread's longest block from the graphs
// served to the search's answer, with its CPU, and the thread's CPU to the search's answer. The
// machine's load goes beside each round: read the figures of both trees in the same round.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, request, startAgentplane } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';

const history = path.resolve(process.argv[2] ?? '');
if (!process.argv[2] || !fs.existsSync(path.join(history, 'store.json')))
  throw new Error('usage: restartBlocks.ts <data dir with history> [rounds] [baseline ref]');
const rounds = Number(process.argv[3] ?? 5);
const ref = process.argv[4];
const trees: { name: string; root: string; empty?: boolean }[] = [{ name: 'this tree', root: ROOT }];
if (ref) trees.push({ name: ref, root: prepareBaseline(ref, (line) => console.log(line)).root });
// RESTART_EMPTY=1: this tree on an empty directory too, each round (what a start costs without the history)
if (process.env.RESTART_EMPTY) trees.push({ name: 'this tree, empty directory', root: ROOT, empty: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'restart-blocks-'));
const recorder = path.join(ROOT, 'scripts/bench/restartRecorder.mjs');
const graphs = { agent: `${path.join(ROOT, 'examples/graphs/agent.ts')}:agent` };
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Recorded {
  timeOrigin: number;
  blocks: { at: number; ms: number; cpuMs: number }[];
  requests: { what: string; at: number; done: number; cpuAt: number; cpuDone: number; status: number }[];
}
interface Figures {
  servedMs: number;
  okMs: number;
  loadedMs: number;
  slowestOkMs: number;
  oks: number;
  longestBlockMs: number;
  longestBlockCpuMs: number;
  cpuToServedMs: number;
  cpuToOkMs: number;
  cpuToLoadedMs: number;
}

async function once(root: string, dataDir: string): Promise<Figures> {
  const out = path.join(work, `recorded-${process.hrtime.bigint()}.json`);
  const spawned = performance.timeOrigin + performance.now();
  const ap = await startAgentplane({ dataDir, workDir: work, graphs, root, nodeArgs: ['--import', recorder], env: { BENCH_RESTART_OUT: out } });
  const ok = await request(`${ap.url}/ok`);
  const okMs = performance.timeOrigin + performance.now() - spawned;
  if (ok.status !== 200) throw new Error(`/ok: ${ok.status}`);
  let loaded = false;
  const searched = ap.api('/threads/search', { method: 'POST', json: { limit: 1 } }).then((res) => {
    loaded = true;
    return res;
  });
  let slowestOkMs = 0;
  let oks = 0;
  while (!loaded) {
    const asked = performance.now();
    await request(`${ap.url}/ok`);
    slowestOkMs = Math.max(slowestOkMs, performance.now() - asked);
    oks += 1;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const search = await searched;
  if (search.status !== 200) throw new Error(`search: ${search.status}`);
  await ap.stop();
  const recorded = JSON.parse(fs.readFileSync(out, 'utf8')) as Recorded;
  const origin = recorded.timeOrigin - spawned;
  const served = recorded.requests.find((r) => r.status === 200 && r.what.startsWith('GET /assistants/'))!;
  const searchDone = recorded.requests.find((r) => r.what === 'POST /threads/search')!;
  const firstOk = recorded.requests.find((r) => r.what === 'GET /ok')!;
  const during = recorded.blocks.filter((b) => b.at + b.ms > served.done && b.at < searchDone.done);
  const longest = during.reduce((a, b) => (b.ms > a.ms ? b : a), { at: 0, ms: 0, cpuMs: 0 });
  return {
    servedMs: ap.startMs,
    okMs,
    loadedMs: origin + searchDone.done,
    slowestOkMs,
    oks,
    longestBlockMs: longest.ms,
    longestBlockCpuMs: longest.cpuMs,
    cpuToServedMs: served.cpuDone,
    cpuToOkMs: firstOk.cpuDone,
    cpuToLoadedMs: searchDone.cpuDone,
  };
}

const figures = new Map<string, Figures[]>(trees.map((tree) => [tree.name, []]));
for (let i = 0; i < rounds; i += 1) {
  for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
    const f = await once(tree.root, tree.empty ? fs.mkdtempSync(path.join(work, 'empty-')) : history);
    figures.get(tree.name)!.push(f);
    console.log(
      `round ${i + 1} ${tree.name}: graphs served ${f.servedMs.toFixed(0)} ms, /ok ${f.okMs.toFixed(0)} ms, loaded ${f.loadedMs.toFixed(0)} ms; ` +
        `slowest /ok meanwhile ${f.slowestOkMs.toFixed(0)} ms of ${f.oks}; longest block ${f.longestBlockMs.toFixed(0)} ms (CPU ${f.longestBlockCpuMs.toFixed(0)}); ` +
        `main thread CPU to graphs served ${f.cpuToServedMs.toFixed(0)}, to /ok ${f.cpuToOkMs.toFixed(0)}, to loaded ${f.cpuToLoadedMs.toFixed(0)} ms; load ${load()}`,
    );
  }
}
fs.rmSync(work, { recursive: true, force: true });
for (const [name, fs_] of figures) {
  const of = (key: keyof Figures) => `${key} ${median(fs_.map((f) => f[key])).toFixed(0)}`;
  console.log(
    `${name}, medians: ${(['servedMs', 'okMs', 'loadedMs', 'slowestOkMs', 'longestBlockMs', 'longestBlockCpuMs', 'cpuToServedMs', 'cpuToOkMs', 'cpuToLoadedMs'] as const).map(of).join(', ')}`,
  );
}
console.log(`load average ${load()}`);
