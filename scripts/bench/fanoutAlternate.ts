// `npx tsx scripts/bench/fanoutAlternate.ts <git ref> <git ref> [rounds] [subscribers]`: the
// fan-out phase (fanout.ts) on two commits, alternately in the same rounds (the order flipped
// each round), each server started fresh for its turn with the bench's stream caps. Each ref
// is built in its worktree under .bench/ as the bench's `--baseline` builds it, so both run
// compiled and the work tree may change meanwhile. On a shared machine only the ratios within
// one run mean anything: this prints each turn's figures and the medians side by side. Each
// turn measures the bare node:http broadcaster too (the ceiling, fanoutCeiling.ts) right after
// its tree, at that tree's event rate. `<git ref>@<flag>,<flag>` runs that ref's server with those
// node flags (the same ref twice, one with flags: what a V8 setting does to the fan-out).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { waitForSettledStart } from './settledStart.ts';
import { measureFanout, startFanoutServer, type FanoutFigure } from './fanout.ts';
import { fanoutTable } from './fanoutTable.ts';
import { BENCH_GRAPH } from './graph.ts';

const refs = process.argv.slice(2, 4);
if (refs.length < 2) throw new Error('usage: fanoutAlternate.ts <git ref> <git ref> [rounds] [subscribers]');
const rounds = Number(process.argv[4] ?? 3);
const subscribers = Number(process.argv[5] ?? 1000);
const log = (line: string) => console.log(line);
const contenders = refs.map((arg) => {
  const [ref, flags = ''] = arg.split('@');
  const built = prepareBaseline(ref, log);
  const nodeArgs = flags.split(',').filter(Boolean);
  return { name: `${ref} (${built.commit.slice(0, 7)})${nodeArgs.length ? ` ${nodeArgs.join(' ')}` : ''}`, root: built.root, nodeArgs };
});
const figures = new Map<string, FanoutFigure[]>(contenders.map((c) => [c.name, []]));

for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  for (const c of order) {
    const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'fanout-ab-'));
    log(`round ${round + 1}: ${c.name}`);
    const ap = await startFanoutServer(work, c.root, c.nodeArgs);
    try {
      const f = await measureFanout(
        { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH, settled: () => waitForSettledStart(() => ap.rss()) },
        { subscribers, threads: 20, shortHistory: 3, longHistory: 30 },
        (line) => log(`  ${line}`),
      );
      figures.get(c.name)!.push(f);
    } finally {
      await ap.stop();
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

log('');
for (const line of fanoutTable(figures)) log(line);
