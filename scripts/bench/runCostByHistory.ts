// `npx tsx scripts/bench/runCostByHistory.ts [tree] [windows] [seconds between] [threads]`: what a run
// costs the server's main thread as its thread's history grows (issue 87). The fan-out phase's
// runs (`run.start` then the join, on 20 threads, back to back, no subscriber) go on for the
// whole measurement; every `seconds between` the main thread's CPU time (its schedstat) per run
// is read over a 5-s window, beside how many runs each thread has had by then. The bench's
// loaded phase runs on the same threads after the runs-alone phase, on longer histories: a
// cost that grows with them raises the loaded `/ok` figure without any subscriber's doing.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { newThread, protocolRun, startFanoutServer } from './fanout.ts';
import { BENCH_GRAPH } from './graph.ts';

const tree = process.argv[2] ?? '.';
const windows = Number(process.argv[3] ?? 4);
const between = Number(process.argv[4] ?? 15);
/** The phase's 20 by default; fewer make each thread's history grow faster. */
const THREADS = Number(process.argv[5] ?? 20);
const WINDOW_S = 5;
const root = tree === '.' ? ROOT : prepareBaseline(tree, console.log).root;
const mainThreadCpu = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));

const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'run-cost-'));
const ap = await startFanoutServer(work, root);
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
    const [runs0, cpu0] = [runs, mainThreadCpu(ap.pid)];
    await sleep(WINDOW_S);
    const done = runs - runs0;
    const ms = (mainThreadCpu(ap.pid) - cpu0) / done;
    console.log(
      `${tree}: after ~${Math.round(runs0 / THREADS)} runs a thread: main thread ${ms.toFixed(2)} ms a run (${done} runs in ${WINDOW_S} s); load ${load()}`,
    );
    if (w < windows - 1) await sleep(between);
  }
  running = false;
  await Promise.all(drivers);
} finally {
  await ap.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
