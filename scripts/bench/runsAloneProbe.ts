// `npx tsx scripts/bench/runsAloneProbe.ts <tree> [tree] [rounds] [seconds] [subscribers] [--profile]`:
// what the fan-out phase's runs cost `/ok` on the main thread (issue 87). Each turn starts the
// tree's server fresh (the fan-out phase's settings) with loopRecorder.mjs loaded, warms it with
// runs on 20 threads, then drives `run.start` runs on them for `seconds` (with `subscribers`
// reading them when given, as the phase does) while `/ok` is asked one request after another.
// It prints `/ok` p99, the main thread's CPU per run, its event loop's delay (p99, max: what a
// request arriving at a random moment waits for) and the collections meanwhile (count, total,
// longest by kind). With `--profile` the server runs under `--cpu-prof` and the main thread's
// longest busy stretches are printed (busyStretches.ts). A tree is a git ref (built under
// .bench/) or `.` (this work tree, built by `npm run build`); two trees alternate in rounds.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { busyStretches } from './busyStretches.ts';
import { newThread, protocolRun, startFanoutServer } from './fanout.ts';
import { openSubscribers } from './fanoutSubscribers.ts';
import { runDrivers } from './fanoutDrivers.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mainThreadFile, selfByFunction, type CpuProfile } from './flame.ts';
import { busyUs, inclusiveOurs, within } from './profileWindow.ts';
import { BENCH_GRAPH } from './graph.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const profile = process.argv.includes('--profile');
/** `--drivers-apart`: the run drivers in a worker thread of their own (fanoutDrivers.ts), not on the loop that times `/ok`. */
const apart = process.argv.includes('--drivers-apart');
const trees = args.slice(0, 2).filter((a) => !/^\d+$/.test(a));
const [rounds = 3, seconds = 10, subscribers = 0] = args.slice(trees.length).map(Number);
if (trees.length === 0) throw new Error('usage: runsAloneProbe.ts <tree> [tree] [rounds] [seconds] [subscribers] [--profile]');
const THREADS = 20;
const log = (line: string) => console.log(line);
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// `<tree>@<flag>,<flag>`: the tree's server with those node flags (`.@--max-semi-space-size=32`)
const contenders = trees.map((spec) => {
  const [tree = '.', flags = ''] = spec.split('@');
  const root = tree === '.' ? ROOT : prepareBaseline(tree, log).root;
  const list = flags ? flags.split(',') : [];
  // `apart` among them: this contender's drivers in a worker thread (as --drivers-apart for all)
  return { name: spec, root, flags: list.filter((f) => f !== 'apart'), apart: apart || list.includes('apart') };
});
contenders.forEach((c, i) => contenders.slice(0, i).some((o) => o.name === c.name) && (c.name += ` #${i + 1}`));

interface LoopFigure {
  monoUs: number;
  delay: { p50: number; p99: number; p999: number; max: number; mean: number };
  gcs: [number, number, string][];
  gaps: { count: number; wallMs: number; cpuMs: number; queuedMs: number; blockedMs: number; gcMs: number; longest: number[][] };
  held: { count: number; p50: number; p99: number; p999: number; max: number; msInOver5: number; msInOver10: number; total: number };
}
interface Turn {
  okP99: number;
  okMax: number;
  mainMsPerRun: number;
  runs: number;
  loop: LoopFigure;
}
const turns = new Map<string, Turn[]>(contenders.map((c) => [c.name, []]));
const mainThreadCpu = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
/** CPU time in ms of the process's threads so far, summed by thread name (comm: `node` the main thread, run workers' names, `V8 DefaultWorke` the collector's and compiler's helpers, `libuv-worker`). */
function cpuByThreadName(pid: number): Map<string, number> {
  const by = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? 'main' : fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ms = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      by.set(name, (by.get(name) ?? 0) + ms);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return by;
}
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? NaN;
const r2 = (x: number) => Math.round(x * 100) / 100;

/** The recorder's figure written at a SIGUSR2 (waited for: the server writes it in a turn of its own). */
async function loopFigure(pid: number, out: string, n: number): Promise<LoopFigure> {
  process.kill(pid, 'SIGUSR2');
  const file = `${out}.${n}.json`;
  for (let i = 0; i < 200 && !fs.existsSync(file); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  return JSON.parse(fs.readFileSync(file, 'utf8')) as LoopFigure;
}

function gcSummary(gcs: [number, number, string][]): string {
  const by = new Map<string, number[]>();
  for (const [, ms, kind] of gcs) by.set(kind, [...(by.get(kind) ?? []), ms]);
  return [...by]
    .map(([kind, ms]) => `${kind} ${ms.length}× total ${Math.round(ms.reduce((a, b) => a + b, 0))} ms, p99 ${r2(p(ms, 0.99))}, max ${r2(Math.max(...ms))}`)
    .join('; ');
}

for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  for (const c of order) {
    const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'runs-alone-'));
    const out = path.join(work, 'loop');
    const cpuDir = path.join(work, 'cpu');
    const recorder = path.join(ROOT, 'scripts/bench/loopRecorder.mjs');
    process.env.BENCH_LOOP_OUT = out;
    const ap = await startFanoutServer(work, c.root, ['--import', recorder, ...c.flags, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`] : [])]);
    let stopped = false;
    try {
      const t = { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH };
      const threads = await Promise.all(Array.from({ length: THREADS }, () => newThread(t)));
      const held = subscribers > 0 ? await openSubscribers({ target: t, threads, subscribers }) : null;
      let running = true;
      let runs = 0;
      const worker = c.apart ? await runDrivers({ target: t, threads }) : null;
      await worker?.start();
      const drivers = worker
        ? []
        : threads.map(async (thread) => {
            while (running) if (await protocolRun(t, thread)) runs += 1;
          });
      const clientDelay = monitorEventLoopDelay({ resolution: 1 });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      clientDelay.enable();
      const from = await loopFigure(ap.pid, out, 0);
      const runs0 = worker ? await worker.count() : runs;
      const main0 = mainThreadCpu(ap.pid);
      const threads0 = cpuByThreadName(ap.pid);
      const times: number[] = [];
      const until = performance.now() + seconds * 1000;
      while (performance.now() < until) {
        const started = performance.now();
        const res = await fetch(`${t.url}/ok`, { headers: t.headers });
        await res.arrayBuffer();
        times.push(performance.now() - started);
      }
      const loop = await loopFigure(ap.pid, out, 1);
      clientDelay.disable();
      if (worker) runs = await worker.count();
      const done = runs - runs0;
      const main = mainThreadCpu(ap.pid) - main0;
      const threadsCpu = [...cpuByThreadName(ap.pid)]
        .map(([name, ms]) => [name, ms - (threads0.get(name) ?? 0)] as const)
        .filter(([, ms]) => ms >= 10)
        .sort((a, b) => b[1] - a[1])
        .map(([name, ms]) => `${name} ${Math.round(ms / seconds / 10)}%`)
        .join(', ');
      running = false;
      await Promise.all(drivers);
      await worker?.stop();
      await worker?.close();
      await held?.close();
      const turn: Turn = { okP99: r2(p(times, 0.99)), okMax: r2(Math.max(...times)), mainMsPerRun: r2(main / done), runs: done, loop };
      turns.get(c.name)!.push(turn);
      log(
        `round ${round + 1} ${c.name}: /ok p99 ${turn.okP99} ms (max ${turn.okMax}, ${times.length} requests); ${done} runs, main thread ${turn.mainMsPerRun} ms a run; loop delay p50 ${loop.delay.p50} p99 ${loop.delay.p99} p99.9 ${loop.delay.p999} max ${loop.delay.max} ms; main-thread CPU between two 1-ms ticks p99 ${loop.held.p99} p99.9 ${loop.held.p999} max ${loop.held.max} ms (${loop.held.msInOver5} ms of ${loop.held.total} in stretches ≥ 5 ms); ${loop.gaps.count} gaps ≥ 5 ms, ${loop.gaps.wallMs} ms: on CPU ${loop.gaps.cpuMs}, waiting for a core ${loop.gaps.queuedMs}, blocked ${loop.gaps.blockedMs}, a collection under way ${loop.gaps.gcMs} (longest [wall, cpu, queued] ${JSON.stringify(loop.gaps.longest)}); gc ${gcSummary(loop.gcs)}; the server's threads' CPU (share of a core): ${threadsCpu}; the client's loop delay p99 ${r2(clientDelay.percentile(99) / 1e6)} ms; load ${load()}`,
      );
      if (profile) {
        await ap.stop();
        stopped = true;
        const files = fs.readdirSync(cpuDir).filter((f) => f.endsWith('.cpuprofile'));
        const whole = JSON.parse(fs.readFileSync(path.join(cpuDir, mainThreadFile(files, cpuDir)), 'utf8')) as CpuProfile & { startTime: number };
        const prof = within(whole, from.monoUs, loop.monoUs);
        log(`  the measured stretch's main thread: busy ${r2(busyUs(prof) / 1e6)} s of ${seconds} s; most self time:`);
        const self = selfByFunction(prof);
        for (const [key, us] of self.filter(([k]) => k !== '(idle)').slice(0, 30)) log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${key}`);
        log('  most inclusive time in our sources:');
        for (const [key, us] of inclusiveOurs(prof).slice(0, 40)) log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${key}`);
        const stretches = busyStretches(prof, 25);
        log(`  ${stretches.count} busy stretches; at least: ${stretches.atLeast.map(([b, n]) => `${b} ms ${n}`).join(', ')}; the longest:`);
        for (const s of stretches.longest)
          log(
            `  ${s.ms} ms at ${s.atMs}: ${s.self.map(([k, ms]) => `${k} ${ms}`).join('; ')}\n      ours: ${s.ours.map(([k, ms]) => `${k} ${ms}`).join('; ')}`,
          );
        log(`  profiles in ${path.relative(ROOT, cpuDir)}`);
      }
    } finally {
      if (!stopped) await ap.stop();
      if (!profile) fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const c of contenders) {
  const ts = turns.get(c.name)!;
  const col = (f: (t: Turn) => number) => `${median(ts.map(f))} (${ts.map(f).join(', ')})`;
  log(
    `${c.name}: /ok p99 ${col((t) => t.okP99)}; loop delay p99 ${col((t) => t.loop.delay.p99)}, CPU held p99 ${col((t) => t.loop.held.p99)} p99.9 ${col((t) => t.loop.held.p999)}, max ${col((t) => t.loop.delay.max)}; main ms a run ${col((t) => t.mainMsPerRun)}`,
  );
}
