// What the event loop ran while B's slowest reads waited under A's flood (issue 83): the main
// thread's CPU profile of scripts/bench/tenantFlood.ts, cut to the spans of the reads whose
// read_loop (the loop's CPU time while the read waited) was the longest, each span's samples
// summed by what the loop was doing: the first of our modules on the stack (src/…), else the
// function at the stack's root (the loop's phase: a socket's read, a timer, microtasks, GC).
// Samples count at most `cap` µs each: a longer gap is time the thread was off the CPU.
//
//   FLOOD_ROUNDS=3 FLOOD_READS_FILE=/tmp/reads.json node --cpu-prof --cpu-prof-interval 250 \
//     --cpu-prof-dir=/tmp/prof --import tsx scripts/bench/tenantFlood.ts
//   npx tsx scripts/bench/floodReadProfile.ts /tmp/prof/CPU.…0.001.cpuprofile /tmp/reads.json [top] [cap]
import fs from 'node:fs';
import type { CpuProfile } from './flame.ts';

const [profileFile, readsFile, topArg, capArg] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(profileFile!, 'utf8')) as CpuProfile & { startTime: number };
const reads = JSON.parse(fs.readFileSync(readsFile!, 'utf8')) as [number, number, number][];
const top = Number(topArg ?? 8);
const cap = Number(capArg ?? 500);

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** What a sample was doing: our outermost module's function, else the root's function. */
function labelOf(id: number): string {
  const stack: number[] = [];
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) stack.push(n);
  stack.reverse();
  const leaf = byId.get(id)!.callFrame.functionName;
  if (leaf === '(garbage collector)' || leaf === '(idle)' || leaf === '(program)') return leaf;
  const ours = stack.map((n) => byId.get(n)!.callFrame).filter((f) => f.url.includes('/src/'));
  const f = (process.env.LEAFMOST ? ours[ours.length - 1] : ours[0]) ?? byId.get(stack[1] ?? id)!.callFrame;
  return `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/src\//, 'src/').replace(/^.*\/node_modules\//, '')}`.trim();
}

// each sample's time, µs of the same clock as the reads' spans
const times: number[] = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) times.push((clock += delta));

const slowest = [...reads].sort((a, b) => b[2] - a[2]).slice(0, top);
// over all the slowest reads together: what the loop ran most while they waited
const total = new Map<string, number>();
for (const [start, end, loopMs] of slowest) {
  const spent = new Map<string, number>();
  for (let i = 0; i < times.length; i++) {
    if (times[i]! <= start || times[i]! > end) continue;
    const label = labelOf(profile.samples[i]!);
    spent.set(label, (spent.get(label) ?? 0) + Math.min(profile.timeDeltas[i]!, cap) / 1000);
    total.set(label, (total.get(label) ?? 0) + Math.min(profile.timeDeltas[i]!, cap) / 1000);
  }
  const what = [...spent]
    .filter(([label]) => label !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([label, ms]) => `${label} ${ms.toFixed(1)}`);
  console.log(`read of ${((end - start) / 1000).toFixed(1)} ms, loop ${loopMs.toFixed(1)} ms, idle ${(spent.get('(idle)') ?? 0).toFixed(1)} ms:`);
  console.log(`   ${what.join('\n   ')}`);
}
const totals = [...total].filter(([label]) => label !== '(idle)').sort((a, b) => b[1] - a[1]);
console.log(`the ${slowest.length} reads together (${totals.reduce((sum, [, ms]) => sum + ms, 0).toFixed(1)} ms busy):`);
console.log(
  `   ${totals
    .slice(0, 20)
    .map(([label, ms]) => `${label} ${ms.toFixed(1)}`)
    .join('\n   ')}`,
);
