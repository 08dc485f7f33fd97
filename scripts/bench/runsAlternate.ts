// `npx tsx scripts/bench/runsAlternate.ts <other tree> [rounds] [runs]` (issue 91): the embedded
// store's runs/s in this tree and another (a built checkout of a baseline), in alternating
// rounds, each on a fresh server and data directory: `runs` (default 600) runs of the shipped
// `agent` graph, 10 a thread, 8 at a time (as history.ts makes a history), from the first thread
// created to the last run's answer. Prints each tree's runs/s and the server's CPU per run (its
// process and run workers: steadier than runs/s on a loaded machine), their medians' ratios and the load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { agentRuns } from './agentRuns.ts';

const other = process.argv[2];
if (!other) throw new Error('usage: runsAlternate.ts <other tree> [rounds] [runs]');
const rounds = Number(process.argv[3] ?? 3);
const RUNS = Number(process.argv[4] ?? 600);
const CONCURRENCY = 8;
const trees = [
  { name: 'this tree', root: ROOT, rates: [] as number[], cpu: [] as number[] },
  { name: path.basename(path.resolve(other)), root: path.resolve(other), rates: [] as number[], cpu: [] as number[] },
];
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'runs-alternate-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function runsPerSecond(ap: Agentplane): Promise<number> {
  const started = performance.now();
  await agentRuns(ap, RUNS, CONCURRENCY);
  return RUNS / ((performance.now() - started) / 1000);
}

for (let i = 0; i < rounds; i += 1) {
  for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
    const ap = await startAgentplane({
      dataDir: path.join(work, `data-${i}-${trees.indexOf(tree)}`),
      workDir: work,
      root: tree.root,
      graphs: { agent: `${path.join(ROOT, 'examples/graphs/agent.ts')}:agent` },
    });
    try {
      const cpu = ap.cpu();
      tree.rates.push(await runsPerSecond(ap));
      tree.cpu.push(((ap.cpu() - cpu) / RUNS) * 1000);
    } finally {
      await ap.stop();
    }
    console.log(`round ${i + 1} ${tree.name}: ${tree.rates.at(-1)!.toFixed(1)} runs/s, ${tree.cpu.at(-1)!.toFixed(1)} CPU ms a run; load ${load()}`);
  }
}
fs.rmSync(work, { recursive: true, force: true });
for (const t of trees) console.log(`${t.name}: median ${median(t.rates).toFixed(1)} runs/s of ${t.rates.map((r) => r.toFixed(1)).join(', ')}`);
for (const t of trees) console.log(`${t.name}: median ${median(t.cpu).toFixed(1)} CPU ms a run of ${t.cpu.map((c) => c.toFixed(1)).join(', ')}`);
console.log(
  `this tree ÷ other: runs/s ${(median(trees[0]!.rates) / median(trees[1]!.rates)).toFixed(3)}, CPU a run ${(median(trees[0]!.cpu) / median(trees[1]!.cpu)).toFixed(3)}; load average ${load()}`,
);
