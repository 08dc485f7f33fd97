// When a run worker collects its garbage around the main thread's warm-up runs (issue 89: the
// first run after a start should find the run path as the next runs do).
//
// - Before the first of them, while no run is in the worker, a full collection takes what loading
//   the project left: otherwise V8 takes it by a full collection on the first run's allocations
//   (~45 ms of that run in a CPU profile of a start).
// - Never after them: a full collection then deoptimized the code they had optimized that held
//   objects of theirs, dead by then (V8's --trace-deopt: "marking dependent code … for
//   deoptimization, reason: weak objects", the async hooks' promise hooks among it), and the first
//   run paid for compiling it again (~15 ms of a core, on a 2-core machine beside the run).
// - Once the last has ended and none came for `settledMs` with no run in the worker: the young
//   generation (a scavenge, which deoptimizes nothing), so the first run does not pay for a
//   scavenge of the warm-up's allocations (2-10 ms of it in --trace-gc).

export interface Collections {
  /** V8's full collection (runtime/idle/idleCollector.ts). */
  full(): void;
  /** V8's collection of the young generation alone. */
  young(): void;
}

/** How long after a warm-up run's end, with none after it, the warm-up counts as over. */
export const WARM_UP_SETTLED_MS = 50;

export class WarmUpCollections {
  private collectedBefore = false;
  private settled: NodeJS.Timeout | undefined;

  /** `idle`: whether no run (the project's or the warm-up's) is in the worker. */
  constructor(
    private readonly collections: Collections,
    private readonly idle: () => boolean,
    private readonly settledMs = WARM_UP_SETTLED_MS,
  ) {}

  /** A warm-up run is about to start. */
  beforeRun(): void {
    clearTimeout(this.settled);
    if (this.collectedBefore || !this.idle()) return;
    this.collectedBefore = true;
    this.collections.full();
  }

  /** A warm-up run ended. */
  runEnded(): void {
    clearTimeout(this.settled);
    this.settled = setTimeout(() => this.idle() && this.collections.young(), this.settledMs);
    this.settled.unref();
  }
}
