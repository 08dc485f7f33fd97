// `npx tsx scripts/bench/restartHistory.ts <data dir with history> [rounds]` (issue 91): how much
// of a restart is the server's own start and how much the store's opening of its history. In
// alternating rounds it starts the server (the built `bin/agentplane.js serve`, the bench's
// project with the shipped `agent` graph, as history.ts runs it) on an empty data directory and
// on the given one (made by `HISTORY_KEEP=1 HISTORY_RUNS=3000 npx tsx scripts/bench/history.ts`:
// .bench/history-*/data), timing spawn to the first 200 of GET /ok; and, in a fresh process
// each, the embedded store alone opening and closing either directory (openJournalStore, what a
// start awaits before it listens). Prints each figure's runs and median, and the load average.
// RESTART_COLD=data evicts the data directories' files from the page cache before each start and
// open (`dd iflag=nocache`, as on a machine that evicted them since the history was written);
// RESTART_COLD=all drops the whole page cache (`/proc/sys/vm/drop_caches`, root), node_modules too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, execSync } from 'node:child_process';
import { ROOT, startAgentplane } from './agentplane.ts';

if (process.argv[2] === '--open') {
  // the child's part: open the store as a start does, and say how long it took
  const { openJournalStore } = await import('../../src/adapters/embedded/journalStore.ts');
  const started = performance.now();
  const store = await openJournalStore({ dataDir: process.argv[3]! });
  const opened = performance.now() - started;
  await store.close();
  console.log(JSON.stringify({ openMs: opened, heapMB: process.memoryUsage().heapUsed / 2 ** 20 }));
  process.exit(0);
}

const history = path.resolve(process.argv[2] ?? '');
if (!process.argv[2] || !fs.existsSync(path.join(history, 'store.json'))) throw new Error('usage: restartHistory.ts <data dir with history> [rounds]');
const rounds = Number(process.argv[3] ?? 5);
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'restart-history-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
process.env.BENCH_PROBE = '/ok';
const graphs = { agent: `${path.join(ROOT, 'examples/graphs/agent.ts')}:agent` };

const figures = { serverEmpty: [] as number[], serverHistory: [] as number[], openEmpty: [] as number[], openHistory: [] as number[] };
/** Makes the page cache cold as RESTART_COLD says, before a start or an open of `dir`. */
function cold(dir: string): void {
  if (process.env.RESTART_COLD === 'all') execSync('sync; echo 1 > /proc/sys/vm/drop_caches');
  else if (process.env.RESTART_COLD === 'data' && fs.existsSync(dir))
    execSync(`sync; find ${JSON.stringify(dir)} -type f -exec dd if={} iflag=nocache count=0 status=none \\;`);
}

function openTime(dir: string): number {
  cold(dir);
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bench/restartHistory.ts'), '--open', dir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return (JSON.parse(out.trim().split('\n').at(-1)!) as { openMs: number }).openMs;
}

for (let i = 0; i < rounds; i += 1) {
  const empty = path.join(work, `empty-${i}`);
  const order: [keyof typeof figures, string][] = [
    ['serverEmpty', empty],
    ['serverHistory', history],
  ];
  for (const [name, dir] of i % 2 === 0 ? order : order.reverse()) {
    cold(dir);
    const ap = await startAgentplane({ dataDir: dir, workDir: work, graphs });
    figures[name].push(ap.startMs);
    await ap.stop();
  }
  const emptyStore = path.join(work, `empty-store-${i}`);
  const opens: [keyof typeof figures, string][] = [
    ['openEmpty', emptyStore],
    ['openHistory', history],
  ];
  for (const [name, dir] of i % 2 === 0 ? opens : opens.reverse()) figures[name].push(openTime(dir));
  console.log(
    `round ${i + 1}: ${Object.entries(figures)
      .map(([name, xs]) => `${name} ${Math.round(xs.at(-1)!)} ms`)
      .join(', ')}; load ${load()}`,
  );
}
fs.rmSync(work, { recursive: true, force: true });
for (const [name, xs] of Object.entries(figures)) console.log(`${name}: median ${Math.round(median(xs))} ms of ${xs.map(Math.round).join(', ')}`);
console.log(`load average ${load()}`);
