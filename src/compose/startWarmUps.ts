// What a start does in the background once the server answers (issue 89: the first run after a
// start should find the server as the next runs do), in one place: the warm-ups in turn, then the
// main thread's young generation collected, so that the start's own allocations are not
// collected inside the first run.
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { Logger } from '../runtime/logging/logger.ts';
import type { BackgroundModule } from '../runtime/application.ts';

/**
 * What a start warms in the background, one after another and with no pause between them, so
 * that nothing of it comes after the run path's warm-up, where the first run would meet it
 * (issue 89: the graphs' schemas were read, and the compiler's worker ended, a moment after that
 * warm-up, often in the first run; and a pause for idleness between the steps is the moment a
 * first run comes, sent by a client that waited for the server to settle):
 *
 * 1. a run worker, at once (the port already answers);
 * 1b. the main thread's graphs, where the start answered from a remembered check that they load
 *    (graphsAtStart.ts): the main thread's LangGraph import after its first 200, not before;
 * 2. the graphs' schemas read from their types, as soon as that worker is ready;
 * 3. the run path through that worker;
 * 4. the server's own run store read as a run's first reads are (`ownReads`): the run path's
 *    warm-up reads a store of its own, and the server's made its readers on its first run's
 *    first reads (scripts/bench/firstRunBlocks.ts: the main thread's one-time blocks of a first
 *    run, found in every start);
 * 5. the main thread's young generation, where any of those came and no run executes now
 *    (`youngCollection`).
 *
 * Step 5: the start (loading the project, the schemas, the run path's warm-up) leaves the main
 * thread's young generation partly full, and the scavenge that empties it came whenever
 * allocations filled it, often in the first run (a scavenge with the start's survivors in it:
 * 5-30 ms of the main thread in --trace-gc, against a first token of ~10 ms on a quiet machine).
 * Taken at the end of the start's work, it costs no request anything; a scavenge deoptimizes no
 * code, as a full collection after the warm-up would (warmUpCollections.ts). The run worker
 * empties its own the same way once the warm-up's runs are over.
 *
 * Without a worker to warm (runs on the request loop, or the worker's warm-up off), or while runs
 * execute, the schemas wait for the process to be idle, from SCHEMA_WARMUP_DELAY_MS after the
 * start: their worker (the TypeScript compiler, ~0.6 s of CPU and ~60-100 MB) would add ~0.3 s
 * to the time to the first answer, and begun while requests or runs keep the process busy it
 * competes with them for the cores (a backlog of runs right after a start answered a third
 * slower). Idle is the process (every thread) using under a tenth of a core over the last half
 * second, and its main thread's event loop busy under a tenth of that time: on a host whose cores
 * other processes fill, a busy server may get under a tenth of a core, but its event loop is
 * still busy (the CPU reading alone started the warm-up beside requests at a load average of 13
 * on 2 cores). A schema asked for before then starts the reading itself; the warm-up then finds
 * it under way. A step that fails is logged at debug; the next one still comes.
 */
const SCHEMA_WARMUP_DELAY_MS = 2_000;
const IDLE_CHECK_MS = 500;
const IDLE_SHARE_OF_A_CORE = 0.1;

export interface StartWarmUps {
  worker?: () => Promise<void>;
  /** The main thread's graphs, where the start did not load them (resolves at once where they are loaded). */
  graphs?: () => Promise<void>;
  schemas?: () => Promise<void>;
  runPath?: () => Promise<void>;
  /** The server's own run store's first reads, of a thread no one has: they read, never write. */
  ownReads?: () => Promise<void>;
  /** V8's collection of this thread's young generation (runtime/idle/idleCollector.ts); absent where it cannot be had. */
  youngCollection?: () => void;
  /** Runs execute now. */
  busy: () => boolean;
}

export function startWarmUps(steps: StartWarmUps, log: Logger): BackgroundModule {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const step = (name: string, work: (() => Promise<void>) | undefined) =>
    stopped || !work ? Promise.resolve() : work().catch((err: unknown) => log.debug(`the start's warm-up of ${name} failed`, { err }));
  /** Resolves once the process is idle, checked every IDLE_CHECK_MS from `delayMs` on (never once stopped). */
  const idle = (delayMs: number) =>
    new Promise<void>((resolve) => {
      const check = (before: NodeJS.CpuUsage, loopBefore: EventLoopUtilization) => {
        timer = setTimeout(() => {
          const used = process.cpuUsage(before);
          const loop = performance.eventLoopUtilization(loopBefore);
          if ((used.user + used.system) / 1000 < IDLE_CHECK_MS * IDLE_SHARE_OF_A_CORE && loop.utilization < IDLE_SHARE_OF_A_CORE) resolve();
          else check(process.cpuUsage(), performance.eventLoopUtilization());
        }, IDLE_CHECK_MS).unref();
      };
      timer = setTimeout(() => check(process.cpuUsage(), performance.eventLoopUtilization()), Math.max(0, delayMs - IDLE_CHECK_MS)).unref();
    });
  return {
    start: () => {
      const started = performance.now();
      void (async () => {
        await step('a run worker', steps.worker);
        // without a worker's warm-up to follow, they wait for the process to be idle (a request that needs them loads them)
        if (steps.graphs && !steps.worker) await idle(SCHEMA_WARMUP_DELAY_MS - (performance.now() - started));
        await step("the main thread's graphs", steps.graphs);
        if (steps.schemas) {
          if (!steps.worker || steps.busy()) await idle(SCHEMA_WARMUP_DELAY_MS - (performance.now() - started));
          await step('the schemas', steps.schemas);
        }
        await step('the run path', steps.runPath);
        await step("the run store's first reads", steps.ownReads);
        // a start that warmed nothing left nothing of its own; a run that came meanwhile allocates
        // beside it: collecting now would pause that run, and what it fills is its own to collect
        const warmed = steps.worker || steps.schemas || steps.runPath;
        if (warmed && !stopped && !steps.busy()) steps.youngCollection?.();
      })();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
