// `node --import tsx scripts/bench/historyLoadBlocks.ts <data dir with history> [src tree]` (issue 91):
// the embedded store alone, opened on a kept history (`HISTORY_KEEP=1 historyClone.ts`) as a server
// opens it, then its history loaded as a server does once it serves (loadInBackground): the time
// and CPU of the opening (which a start waits for before it listens), and during the load every
// stretch of 5 ms or more that the thread held the event loop (between two turns of a 1-ms timer),
// with the CPU the thread spent in it: what a request arriving during the load waits behind. With
// a second argument the store's module is imported from that tree (a baseline worktree), for A/B.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import { ROOT } from './graph.ts';

const dir = path.resolve(process.argv[2] ?? '');
const tree = path.resolve(process.argv[3] ?? ROOT);
const { openJournalStore } = (await import(
  pathToFileURL(path.join(tree, 'src/adapters/embedded/journalStore.ts')).href
)) as typeof import('../../src/adapters/embedded/journalStore.ts');
// the main thread's own time on a CPU (its schedstat's first field, ns): not V8's helper threads, not the wait for a core
const schedstat = `/proc/${process.pid}/task/${process.pid}/schedstat`;
const cpuMs = () => Number(fs.readFileSync(schedstat, 'latin1').split(' ', 1)[0]) / 1e6;
// fresh pages are time on some machines (a VM whose freed memory goes back to the host): counted beside the CPU
const faults = () => process.resourceUsage().minorPageFault;
const opening = { at: performance.now(), cpu: cpuMs(), faults: faults() };
const store = await openJournalStore({ dataDir: dir, loadAfterMs: null });
const opened = { ms: performance.now() - opening.at, cpuMs: cpuMs() - opening.cpu, faults: faults() - opening.faults };
const blocks: { ms: number; cpuMs: number }[] = [];
let turns = 0;
let last = { at: performance.now(), cpu: cpuMs() };
const ticker = setInterval(() => {
  const now = { at: performance.now(), cpu: cpuMs() };
  turns += 1;
  if (now.at - last.at >= 5) blocks.push({ ms: now.at - last.at, cpuMs: now.cpu - last.cpu });
  last = now;
}, 1);
const loading = { at: performance.now(), cpu: cpuMs(), faults: faults() };
store.loadInBackground();
await store.loaded();
const loaded = { ms: performance.now() - loading.at, cpuMs: cpuMs() - loading.cpu, faults: faults() - loading.faults };
clearInterval(ticker);
await store.close();
const longest = blocks.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, cpuMs: 0 });
const byCpu = [...blocks].sort((a, b) => b.cpuMs - a.cpuMs);
console.log(
  JSON.stringify({
    tree: path.relative(ROOT, tree) || '.',
    openMs: Math.round(opened.ms),
    openCpuMs: Math.round(opened.cpuMs),
    openFaults: opened.faults,
    loadMs: Math.round(loaded.ms),
    loadCpuMs: Math.round(loaded.cpuMs),
    loadFaults: loaded.faults,
    turns,
    blocksOver5ms: blocks.length,
    longestMs: Math.round(longest.ms),
    longestCpuMs: Math.round(longest.cpuMs),
    topCpuMs: byCpu.slice(0, 5).map((b) => Math.round(b.cpuMs)),
    load: os.loadavg()[0]!.toFixed(1),
  }),
);
