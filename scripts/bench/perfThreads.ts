// `npx tsx scripts/bench/perfThreads.ts <perf.data>` (issue 86): what each thread of a server did
// on a CPU, from a `perf record -g` of it (freshThreadsCpu.ts with FRESH_CPU_PERF=<dir>): every
// sample's call chain is put in one kind, TurboFan compiling, a young-generation scavenge, the
// major collector (marking, sweeping, evacuating), other GC, or everything else (JavaScript, Node,
// the kernel), and each thread's samples are counted by kind. V8's platform threads do the first
// three for every isolate of the process: their share shows what compiling and collecting cost
// beside the runs' own work, where a V8 CPU profile does not see those threads at all.
import { execFileSync } from 'node:child_process';

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: perfThreads.ts <perf.data>');

const KINDS: [string, RegExp][] = [
  ['compile', /compiler::|Compile|Maglev/],
  ['scavenge', /Scaveng/],
  ['major GC', /Marking|MarkCompact|Sweep|Evacuat/],
  ['other GC', /GarbageCollect|Heap::/],
];

const script = execFileSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
const byThread = new Map<number, Map<string, number>>();
for (const sample of script.split(/\n\s*\n/)) {
  const tid = Number(sample.trim().split(/\s+/)[0]);
  if (!Number.isFinite(tid) || tid === 0) continue;
  const kind = KINDS.find(([, pattern]) => pattern.test(sample))?.[0] ?? 'other';
  const counts = byThread.get(tid) ?? new Map<string, number>();
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
  byThread.set(tid, counts);
}
const total = [...byThread.values()].reduce((n, counts) => n + [...counts.values()].reduce((a, b) => a + b, 0), 0);
for (const [tid, counts] of [...byThread].sort((a, b) => a[0] - b[0])) {
  const samples = [...counts.values()].reduce((a, b) => a + b, 0);
  const kinds = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${((100 * n) / samples).toFixed(1)}%`)
    .join(', ');
  console.log(`thread ${tid}: ${((100 * samples) / total).toFixed(1)}% of the samples; ${kinds}`);
}
