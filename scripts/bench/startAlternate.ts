// `npx tsx scripts/bench/startAlternate.ts <other tree> [starts]`: the bench's start figure
// (spawn of the built `node bin/agentplane.js serve` to the first 200 of a shipped graph's
// assistant, startAgentplane's probe) for this tree and another one (a checkout of a baseline,
// built), started in turns so that both see the same moments of a shared machine. Prints each
// tree's starts, their median and spread, and the idle RSS a second after each start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { delay, treeMinorFaults, treeRss } from './proc.ts';

const other = process.argv[2];
if (!other) throw new Error('usage: startAlternate.ts <other tree> [starts]');
const count = Number(process.argv[3] ?? 7);
const trees = [
  { name: 'this tree', root: ROOT, starts: [] as number[], cpu: [] as number[], rss: [] as number[], faults: [] as number[], rssAt200: [] as number[] },
  {
    name: path.basename(path.resolve(other)),
    root: path.resolve(other),
    starts: [] as number[],
    cpu: [] as number[],
    rss: [] as number[],
    faults: [] as number[],
    rssAt200: [] as number[],
  },
];
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'start-alternate-'));
// the first round's starts compile the project (serve keeps what it compiled for the next start of
// the same sources: shared/projectCompileCache.ts); the later rounds' are restarts of an unchanged
// project. Both are printed: the records are removed here so that the first is a cold compile.
for (const tree of trees) fs.rmSync(path.join(tree.root, 'node_modules', '.cache', 'agentplane', 'projects'), { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (let i = 0; i < count; i += 1) {
  // the order flips every round: neither tree always starts right after the other stopped
  for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
    const ap = await startAgentplane({ dataDir: path.join(work, `data-${i}-${trees.indexOf(tree)}`), workDir: work, root: tree.root });
    tree.starts.push(ap.startMs);
    // the fresh pages the start touched and what is resident at its first 200 (read before its CPU: the reads are cheap)
    tree.faults.push(treeMinorFaults(ap.pid));
    tree.rssAt200.push(treeRss(ap.pid) / 2 ** 20);
    // CPU seconds of the start (every thread: tsx's loader thread too), less moved by other work than wall time
    tree.cpu.push(ap.cpu() * 1000);
    await delay(1000);
    tree.rss.push(ap.rss() / 2 ** 20);
    await ap.stop();
  }
}
fs.rmSync(work, { recursive: true, force: true });
for (const t of trees) {
  const sorted = [...t.starts].sort((a, b) => a - b);
  console.log(
    `${t.name}: first start (a cold compile) ${Math.round(t.starts[0])} ms, CPU ${Math.round(t.cpu[0])}; start median ${Math.round(median(t.starts))} ms (min ${Math.round(sorted[0])}, max ${Math.round(sorted.at(-1)!)}) of ${t.starts.map(Math.round).join(', ')}; CPU median ${Math.round(median(t.cpu))} ms of ${t.cpu.map(Math.round).join(', ')}; minor faults at the first 200 median ${Math.round(median(t.faults))}, RSS there ${median(t.rssAt200).toFixed(1)} MB; idle RSS median ${median(t.rss).toFixed(1)} MB`,
  );
}
console.log(
  `this tree ÷ other: ${(median(trees[0].starts) / median(trees[1].starts)).toFixed(3)}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
