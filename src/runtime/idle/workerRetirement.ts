// When an idle run worker is ended to give its memory back (issue 67: after a burst of large
// runs, RSS should come back near the idle figure within a minute). A run worker's heap is its
// own isolate's: the main thread's idle collector cannot reach it, and V8's memory reducer,
// which would shrink it, comes late or not at all within the minute (scripts/bench/findings.md);
// and a worker, even shrunk, holds ~100 MB of the process (its isolate, the project's modules
// loaded again) that a server with no runs does not pay. Ending it takes all of that away; the
// next run that needs a worker starts one, as the first run after the server's start does.
// The rule alone, apart from any worker: a worker is retired once it has held no run for
// `idleMs` and its runs grew its heap `heapGrowthBytes` or more past what it was once ready, or
// another worker is idle too (issue 91): one idle worker is enough for the next run to find warm,
// and each other one holds ~100 MB of RSS that a burst of runs across threads started and a
// quiet server keeps for ever (2 workers on 2 cores after the history bench's 8 threads at a
// time: RSS 1.5-2x the fresh server's, which has one). A worker whose runs stay small is kept
// when it is the only idle one (its next run finds it warm), however long it idles.
// So is one that is home to a thread whose last run there stopped for input (an interrupt): the
// human's answer may come after any time, and its run must find the graph's per-thread module
// state in that worker, as in upstream's single process.

export interface RetirementSettings {
  /** How long a worker must have held no run (none in hand, claimed or started ahead). */
  idleMs: number;
  /** How much larger than when it was ready its runs must have made its heap (committed). */
  heapGrowthBytes: number;
}

/**
 * 30 s: a conversation's next message mostly comes sooner and finds its worker warm (a fresh
 * worker's first run waits ~1.5–2.5 s for it to load the project); the burst's memory is back
 * well within the minute. 32 MB: ~2 MB of state per run does not make a worker that big.
 */
export const WORKER_RETIREMENT: RetirementSettings = { idleMs: 30_000, heapGrowthBytes: 32 * 1024 * 1024 };

/** What the pool knows of one worker when it asks. */
export interface WorkerState {
  /** Runs it holds now. */
  runs: number;
  /** How long it has held none (0 while it holds some). */
  idleMs: number;
  /** The largest its heap was since its last run began, and its heap once it was ready (bytes, committed). */
  heapBytes: number;
  startHeapBytes: number;
  /** Threads it is home to whose last run there stopped for input (their resume comes to it). */
  awaitingResume: number;
  /** The pool's other workers holding no run and not ending (one of them takes the next run warm). */
  otherIdle: number;
}

/** True: end the worker now (its memory goes with it). */
export function shouldRetire(worker: WorkerState, settings: RetirementSettings = WORKER_RETIREMENT): boolean {
  return (
    worker.runs === 0 &&
    worker.awaitingResume === 0 &&
    worker.idleMs >= settings.idleMs &&
    (worker.heapBytes - worker.startHeapBytes >= settings.heapGrowthBytes || worker.otherIdle > 0)
  );
}
