// `npx tsx scripts/bench/runCostByHistory.ts [tree] [windows] [seconds between] [threads]`: what a run
// costs the server's main thread as its thread's history grows (issue 87). The fan-out phase's
// runs (`run.start` then the join, on 20 threads, back to back, no subscriber) go on for the
// whole measurement; every `seconds between` the main thread's CPU time (its schedstat) per run
// is read over a 5-s window, beside how many runs each thread has had by then. The bench's
// loaded phase runs on the same threads after the runs-alone phase, on longer histories: a
// cost that grows with them raises the loaded `/ok` figure without any subscriber's doing.
// With `--profile` the server runs under `--cpu-prof`, and what grew is printed: the functions
// of our sources whose time a run grew most between the first window and the last.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { newThread, protocolRun, startFanoutServer } from './fanout.ts';
import { BENCH_GRAPH } from './graph.ts';
import { mainThreadFile, type CpuProfile } from './flame.ts';
import { inclusiveOurs, within } from './profileWindow.ts';

const profile = process.argv.includes('--profile');
const [tree = '.', windowsArg, betweenArg, threadsArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const windows = Number(windowsArg ?? 4);
const between = Number(betweenArg ?? 15);
/** The phase's 20 by default; fewer make each thread's history grow faster. */
const THREADS = Number(threadsArg ?? 20);
const WINDOW_S = 5;
const root = tree === '.' ? ROOT : prepareBaseline(tree, console.log).root;
const mainThreadCpu = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));

const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'run-cost-'));
const cpuDir = path.join(work, 'cpu');
const ap = await startFanoutServer(work, root, profile ? ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`] : []);
/** Each window's stretch on the monotonic clock (µs) and its runs. */
const stretches: { from: number; to: number; runs: number; perThread: number }[] = [];
const monoUs = () => Number(process.hrtime.bigint() / 1000n);
let stopped = false;
try {
  const t = { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH };
  const threads = await Promise.all(Array.from({ length: THREADS }, () => newThread(t)));
  let running = true;
  let runs = 0;
  const drivers = threads.map(async (thread) => {
    while (running) if (await protocolRun(t, thread)) runs += 1;
  });
  await sleep(2);
  for (let w = 0; w < windows; w += 1) {
    const [runs0, cpu0, from] = [runs, mainThreadCpu(ap.pid), monoUs()];
    await sleep(WINDOW_S);
    const done = runs - runs0;
    stretches.push({ from, to: monoUs(), runs: done, perThread: Math.round(runs0 / THREADS) });
    const ms = (mainThreadCpu(ap.pid) - cpu0) / done;
    console.log(
      `${tree}: after ~${Math.round(runs0 / THREADS)} runs a thread: main thread ${ms.toFixed(2)} ms a run (${done} runs in ${WINDOW_S} s); load ${load()}`,
    );
    if (w < windows - 1) await sleep(between);
  }
  running = false;
  await Promise.all(drivers);
  if (profile) {
    await ap.stop();
    stopped = true;
    const files = fs.readdirSync(cpuDir).filter((f) => f.endsWith('.cpuprofile'));
    const whole = JSON.parse(fs.readFileSync(path.join(cpuDir, mainThreadFile(files, cpuDir)), 'utf8')) as CpuProfile & { startTime: number };
    const [first, last] = [stretches[0]!, stretches[stretches.length - 1]!];
    /** µs a run in each function of ours over a window. */
    const perRun = (w: typeof first) => new Map(inclusiveOurs(within(whole, w.from, w.to, 2000)).map(([key, us]) => [key, us / w.runs]));
    const [early, late] = [perRun(first), perRun(last)];
    console.log(`what grew, µs a run, after ~${first.perThread} runs a thread → after ~${last.perThread}:`);
    const grown = [...late].map(([key, us]) => [key, us - (early.get(key) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
    for (const [key, us] of grown.slice(0, 40))
      console.log(`  +${Math.round(us).toString().padStart(6)}  (${Math.round(early.get(key) ?? 0)} → ${Math.round(late.get(key)!)})  ${key}`);
  }
} finally {
  if (!stopped) await ap.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
