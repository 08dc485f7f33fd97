// `npx tsx scripts/bench/fanoutGaps.ts [--profile] [subscribers] [turns ≥ ms to name]`: the fan-out
// phase (fanout.ts) as the bench runs it, with the server's main-thread loop recorded
// (loopGaps.mjs), to say what sets `/ok`'s tail under the subscribers (issue 87). For the loaded
// window (while `/ok` and the first event are sampled under the subscribers) and the runs-alone
// window before it: the collections by kind (count, summed and longest wall
// pause), the loop's long turns split into CPU / waiting for a core / blocked, and how many
// turns held at least 10, 20 and 50 ms of CPU; and each `/ok` sample of the two windows set beside
// the server's record of it (okSamples.ts: before the server's loop read it, in the server, after;
// the collections and both loops' turns over it). `--node=<flag>` (repeated) goes to the server's
// node (`--node=--single-threaded-gc`). With --profile (node --cpu-prof; the profile slows
// the server) each turn of at least N ms of CPU (default 10) is named by what ran in it: the task
// it was (its first frames), the functions with the most self time, and ours on its stacks.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { constants } from 'node:perf_hooks';
import { ROOT } from './agentplane.ts';
import { measureFanout, startFanoutServer } from './fanout.ts';
import { BENCH_GRAPH } from './graph.ts';
import { mainThreadFile, type CpuProfile } from './flame.ts';
import { attribute, copiedReport, okReport, type Span, type Turn } from './okSamples.ts';
import { threadTicks } from '../../test/support/threadCpu.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

const args = process.argv.slice(2);
const profile = args.includes('--profile');
// `--node=<flag>` (repeated): a flag for agentplane's node (`--node=--single-threaded-gc`), an A/B of a V8 setting
const serverFlags = args.filter((a) => a.startsWith('--node=')).map((a) => a.slice('--node='.length));
// `--tree=<dir>`: the server of another built tree (its bin/agentplane.js and dist/), driven and recorded by this one's scripts
const tree = args.find((a) => a.startsWith('--tree='))?.slice('--tree='.length) ?? ROOT;
const [subscribers = 1000, nameAtMs = 10] = args.filter((a) => !a.startsWith('--')).map(Number);
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'fanout-gaps-'));
removeAtExit(path.join(work, 'data'));
const gapsFile = path.join(work, 'gaps.json');
const cpuDir = path.join(work, 'cpu');
const recorder = path.join(ROOT, 'scripts/bench/loopGaps.mjs');
// turns of ≥ 5 ms wall: a sample's tail of tens of ms is set beside the turns it waited behind
process.env.BENCH_GAPS_MIN_MS ??= '5';
// the driving process's own loop, recorded alike (the bench's `/ok` samples are taken on it);
// loaded before the server's variables are set, which would make it the server's recorder too
const { recordLoop } = (await import(pathToFileURL(recorder).href)) as { recordLoop(minWallUs: number): { snapshot(): Gaps } };
const client = recordLoop(Number(process.env.BENCH_GAPS_MIN_MS) * 1000);
process.env.BENCH_GAPS_OUT = gapsFile;
process.env.BENCH_GAPS_SERVER = '1';
const now = () => Number(process.hrtime.bigint() / 1000n);

interface Gaps {
  originUs: number;
  turns: number;
  /** [start µs, end µs, CPU µs, waiting for a core µs] */
  gaps: Turn[];
  /** [start µs since origin, wall µs, kind] */
  gcs: [number, number, number][];
  /** The server's scavenges: [read µs, bytes copied, of them promoted, young generation before] (loopGaps.mjs; the last two since session 37). */
  copies?: [number, number, number?, number?][];
  /** The server's `/ok`: [read, answered] µs. */
  oks?: Span[];
}

const nodeArgs = ['--import', recorder, ...serverFlags, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`] : [])];
const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load ${loadAverage()} at the start`);
const ap = await startFanoutServer(work, tree, nodeArgs);
const marks = new Map<string, number>();
const okSpans = new Map<string, readonly Span[]>();
type Ticks = ReturnType<typeof threadTicks>;
const threadsAt = new Map<string, { server: Ticks; client: Ticks }>();

/**
 * Who held the 2 cores over a window, in % of one core: the server's main thread, its threads
 * below its niceness (the run workers) and its others (V8's helpers, libuv's pool); the driving
 * process's main thread (the runs' requests and the `/ok` samples) and its others (the subscribers' worker).
 */
function coreShares(name: string): string {
  const from = threadsAt.get(`${name} from`);
  const to = threadsAt.get(`${name} to`);
  const [a, b] = [marks.get(`${name} from`), marks.get(`${name} to`)];
  if (!from || !to || !a || !b) return '';
  const share = (ticks: number) => `${Math.round((ticks * 10 * 100) / ((b - a) / 1000))}%`;
  const split = (before: Ticks, after: Ticks, pid: number) => {
    const mainNice = after.get(pid)?.nice ?? 0;
    const out = { main: 0, lowered: 0, others: 0 };
    for (const [tid, { ticks, nice }] of after) {
      const used = ticks - (before.get(tid)?.ticks ?? 0);
      if (tid === pid) out.main += used;
      else if (nice > mainNice) out.lowered += used;
      else out.others += used;
    }
    return out;
  };
  const s = split(from.server, to.server, ap.pid);
  const c = split(from.client, to.client, process.pid);
  return `  cores (% of one): server main ${share(s.main)}, run workers ${share(s.lowered)}, its other threads ${share(s.others)}; the driving process's main ${share(c.main)}, its other threads ${share(c.lowered + c.others)}`;
}
try {
  await measureFanout(
    { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH },
    { subscribers, threads: 20, shortHistory: 3, longHistory: 30, ceiling: false },
    (line) => console.log(line),
    (name, edge, spans) => {
      marks.set(`${name} ${edge}`, now());
      threadsAt.set(`${name} ${edge}`, { server: threadTicks(ap.pid), client: threadTicks() });
      if (spans) okSpans.set(name, spans);
    },
  );
} finally {
  await ap.stop();
}
const clientLoop = client.snapshot();
console.log(`load ${loadAverage()} at the end${serverFlags.length ? `; the server's node given ${serverFlags.join(' ')}` : ''}`);

const recorded = JSON.parse(fs.readFileSync(gapsFile, 'utf8')) as Gaps;
const kindName: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
const gcSpans = recorded.gcs.map(([at, us, kind]) => ({
  from: recorded.originUs + at,
  to: recorded.originUs + at + us,
  us,
  kind: kindName[kind] ?? String(kind),
}));
const ms = (us: number) => Math.round(us / 100) / 10;
const overlap = (a: number, b: number, c: number, d: number) => Math.max(0, Math.min(b, d) - Math.max(a, c));

function window(name: string, from: number, to: number, key?: string) {
  const gcs = gcSpans.filter((g) => g.from >= from && g.from < to);
  const kinds = [...new Set(gcs.map((g) => g.kind))].map((kind) => {
    const us = gcs.filter((g) => g.kind === kind).map((g) => g.us);
    return `${kind} ${us.length} (${ms(us.reduce((a, b) => a + b, 0))} ms, longest ${ms(Math.max(...us))})`;
  });
  const turns = recorded.gaps.filter(([s, e]) => s >= from && e <= to);
  const long = turns.filter(([s, e]) => e - s >= 40_000).sort((a, b) => b[1] - b[0] - (a[1] - a[0]));
  const sum = (f: (g: (typeof long)[number]) => number) => ms(long.reduce((acc, g) => acc + f(g), 0));
  const cpuAtLeast = (bound: number) => turns.filter((g) => g[2] >= bound * 1000).length;
  const withCollection = (bound: number) => turns.filter(([s, e, cpu]) => cpu >= bound * 1000 && gcSpans.some((g) => overlap(s, e, g.from, g.to) > 0)).length;
  console.log(`\n${name}, ${Math.round((to - from) / 1e5) / 10} s: collections ${kinds.join(', ') || 'none'}`);
  const copies = (recorded.copies ?? []).filter(([at]) => at >= from && at < to);
  const young = copies.flatMap(([, , , before]) => (before === undefined ? [] : [before]));
  console.log(
    `  ${copiedReport(
      copies.map(([, bytes]) => bytes),
      copies.flatMap(([, , p]) => (p === undefined ? [] : [p])),
      young,
    )}`,
  );
  console.log(`  turns of ≥ 5 ms wall: ${turns.filter(([s, e]) => e - s >= 5_000).length}`);
  console.log(
    `  turns of ≥ 40 ms wall: ${long.length}, ${sum((g) => g[1] - g[0])} ms = CPU ${sum((g) => g[2])} + waiting for a core ${sum((g) => g[3])} + blocked ${sum((g) => g[1] - g[0] - g[2] - g[3])}; a collection overlapped ${sum(([s, e]) => gcSpans.reduce((a, g) => a + overlap(s, e, g.from, g.to), 0))} ms of them`,
  );
  console.log(
    `  turns holding ≥ 4 ms of CPU: ${cpuAtLeast(4)}, ≥ 6: ${cpuAtLeast(6)}, ≥ 8: ${cpuAtLeast(8)}, ≥ 10: ${cpuAtLeast(10)}, ≥ 20: ${cpuAtLeast(20)}, ≥ 50: ${cpuAtLeast(50)} (of them with a collection in them: ≥ 4 ms ${withCollection(4)}, ≥ 10 ms ${withCollection(10)}); the most CPU in one turn ${ms(Math.max(0, ...turns.map((g) => g[2])))} ms`,
  );
  for (const [s, e, cpu, queued] of long.slice(0, 8)) {
    const gc = gcSpans.filter((g) => overlap(s, e, g.from, g.to) > 0).map((g) => `${g.kind} ${ms(g.us)}`);
    console.log(`    ${ms(e - s)} ms: CPU ${ms(cpu)}, waiting ${ms(queued)}, blocked ${ms(e - s - cpu - queued)}${gc.length ? `; ${gc.join(', ')}` : ''}`);
  }
  const samples = key === undefined ? undefined : okSpans.get(key);
  if (key !== undefined) console.log(coreShares(key));
  if (samples) {
    console.log(`  /ok, each sample beside the server's record of it, its collections and both loops' turns of ≥ ${process.env.BENCH_GAPS_MIN_MS} ms:`);
    for (const line of okReport(attribute(samples, recorded.oks ?? [], gcSpans, recorded.gaps, clientLoop.gaps))) console.log(line);
  }
  return turns;
}

const edges = (name: string) => [marks.get(`${name} from`), marks.get(`${name} to`)] as const;
const [aloneFrom, aloneTo] = edges('runs alone');
const [loadedFrom, loadedTo] = edges('loaded');
if (!aloneFrom || !aloneTo || !loadedFrom || !loadedTo) throw new Error('the phase did not reach its loaded windows');
const alone = window('runs alone, no subscriber (while /ok and the first event are sampled)', aloneFrom, aloneTo, 'runs alone');
const loaded = window(`runs and ${subscribers} subscribers (while /ok and the first event are sampled)`, loadedFrom, loadedTo, 'loaded');
// the runs stop and the subscribers all close at once: a mass disconnect (a proxy restarted)
window('after: the last runs end, every subscriber closes', loadedTo, Math.max(loadedTo, ...recorded.gaps.map((g) => g[1])));

if (profile) {
  const files = fs.readdirSync(cpuDir).filter((f) => f.endsWith('.cpuprofile'));
  const p = JSON.parse(fs.readFileSync(path.join(cpuDir, mainThreadFile(files, cpuDir)), 'utf8')) as CpuProfile & { startTime: number };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (id: number) => byId.get(id)!.callFrame.functionName || '(anonymous)';
  const ours = (id: number) => /\/(dist|src)\//.test(byId.get(id)!.callFrame.url);
  const stackOf = (id: number) => {
    const ids: number[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) ids.push(n);
    return ids.reverse().slice(1); // below (root)
  };
  let clock = p.startTime;
  const times = p.timeDeltas.map((d) => (clock += d));
  const named = (title: string, turns: Turn[]) => {
    const held = turns.filter((g) => g[2] >= nameAtMs * 1000).sort((a, b) => b[2] - a[2]);
    console.log(`\n${title} turns holding ≥ ${nameAtMs} ms of CPU (${held.length}), by what ran in them (ms of samples):`);
    const top = (m: Map<string, number>, k: number) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, k)
        .map(([key, us]) => `${key} ${ms(us)}`)
        .join('; ');
    for (const [s, e, cpu, queued] of held.slice(0, 15)) {
      const task = new Map<string, number>();
      const self = new Map<string, number>();
      const mine = new Map<string, number>();
      times.forEach((t, i) => {
        if (t < s || t > e) return;
        // a sample's share: its gap, at most 2 ms (a longer gap is time off the CPU)
        const us = Math.min(t - (times[i - 1] ?? s), 2000);
        const stack = stackOf(p.samples[i]!);
        const add = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + us);
        add(task, stack.slice(0, 2).map(name).join(' > '));
        add(self, name(p.samples[i]!));
        const chain = stack.filter(ours).map(name).slice(0, 3).join(' > ');
        if (chain) add(mine, chain);
      });
      const gc = gcSpans.filter((g) => overlap(s, e, g.from, g.to) > 0).map((g) => `${g.kind} ${ms(g.us)}`);
      console.log(`  ${ms(cpu)} ms CPU (${ms(e - s)} wall, waiting ${ms(queued)})${gc.length ? `, ${gc.join(', ')}` : ''}`);
      console.log(`    task: ${top(task, 4)}`);
      console.log(`    self: ${top(self, 5)}`);
      console.log(`    ours: ${top(mine, 4)}`);
    }
  };
  // the runs alone first: what the runs cost the loop before any subscriber is there
  named("the runs-alone window's", alone);
  named("the loaded window's", loaded);
}
console.log(`\n(recorded in ${work})`);
