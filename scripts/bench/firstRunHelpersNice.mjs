// Preloaded into a server by firstRun.ts (`<tree>@scripts/bench/firstRunHelpersNice.mjs`): V8's
// platform threads, which compile hot functions to optimized code and help the collector for
// every isolate (the main thread and the run workers alike), lowered to the run worker's niceness
// (+10, run-workers/schedulingPriority.ts). Node makes them first, before any other thread: its
// delayed-task thread, then --v8-pool-size (4 by default) workers, the ids after the main
// thread's; libuv's pool, which answers the run path's file system calls, is left as it is. An experiment for issue 89 (scripts/bench/findings.md,
// h89 session 9): the run worker yields to those threads as it yields to the request loop, so a
// compilation of a LangChain function that became hot, 2-10 ms of a V8 thread in a run by its
// count, takes the core the worker's run needs whenever the main thread has the other. Run
// beside the tree alone on a quiet machine; Linux only (a priority is per thread there).
import fs from 'node:fs';
import os from 'node:os';
import { isMainThread } from 'node:worker_threads';

const NICENESS = 10;

if (isMainThread && process.platform === 'linux') {
  const poolSize = Number(process.execArgv.find((arg) => arg.startsWith('--v8-pool-size='))?.split('=')[1] ?? 4);
  const helpers = fs
    .readdirSync('/proc/self/task')
    .map(Number)
    .filter((tid) => tid !== process.pid)
    .sort((a, b) => a - b)
    .slice(0, 1 + poolSize);
  const lowered = [];
  for (const tid of helpers) {
    try {
      os.setPriority(tid, Math.min(19, os.getPriority(tid) + NICENESS));
      lowered.push(tid);
    } catch {
      // the thread ended meanwhile, or the sandbox forbids it
    }
  }
  fs.writeSync(2, `firstRunHelpersNice: V8's platform threads ${lowered.join(' ')} lowered by ${NICENESS}\n`);
}
