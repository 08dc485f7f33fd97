// Watches the pool's idle workers for one to retire (runtime/idle/workerRetirement.ts says which):
// once a worker has held no run for the rule's idle time it is asked its heap's size, and on
// the answer, if it still holds none and its heap grew past the rule's growth or another worker
// is idle too, the pool ends it.
// A worker is asked once per idle spell: an idle heap does not grow, so one that was small
// enough is left alone until it has run again. One kept only because it is home to a thread
// waiting for its resume is asked again once none is (`noneAwaiting`), its idle spell counted
// from its last run still. The clock is the pool's; no Worker here.
import { shouldRetire, WORKER_RETIREMENT, type RetirementSettings } from '../../runtime/idle/workerRetirement.ts';

/** What the watch needs of the pool, for a worker of type W. */
export interface RetiringPool<W> {
  /** Runs the worker holds now (in hand, claimed, started ahead). */
  runs(worker: W): number;
  /** Threads the worker is home to whose last run there stopped for input. */
  awaitingResume(worker: W): number;
  /** The pool's other workers holding no run and not ending. */
  otherIdle(worker: W): number;
  /** Posts `heap` to the worker (its answer comes to `heard`). */
  askHeap(worker: W): void;
  /** Ends the worker: it holds no run, and the rule said so. */
  retire(worker: W, why: { idleMs: number; heapBytes: number; startHeapBytes: number; otherIdle: number }): void;
}

export class IdleRetirement<W> {
  /** Workers holding no run, since when (performance.now()), the timer that asks them, and whether it asked. */
  private readonly idle = new Map<W, { since: number; timer: NodeJS.Timeout; asked: boolean }>();

  constructor(
    private readonly pool: RetiringPool<W>,
    private readonly settings: RetirementSettings = WORKER_RETIREMENT,
  ) {}

  /** The worker holds no run from now (its last ended, or it was dropped). */
  idleFrom(worker: W): void {
    this.busy(worker);
    this.wait(worker, performance.now(), this.settings.idleMs);
  }

  /**
   * Asks the worker once it has been idle for the rule's time. A timer may fire a few ms early
   * by performance.now() (it counts from the event loop's time, taken when the loop turn began,
   * which a long turn leaves behind): then it waits the rest, or the rule would find the worker
   * idle too briefly and the spell would end without a retirement.
   */
  private wait(worker: W, since: number, ms: number): void {
    const timer = setTimeout(() => {
      const left = this.settings.idleMs - (performance.now() - since);
      if (left > 0) this.wait(worker, since, left);
      else {
        this.idle.get(worker)!.asked = true;
        this.pool.askHeap(worker);
      }
    }, ms);
    timer.unref();
    this.idle.set(worker, { since, timer, asked: false });
  }

  /** The worker was given a run, or it ended: its idle spell (if any) is over. */
  busy(worker: W): void {
    const spell = this.idle.get(worker);
    if (!spell) return;
    clearTimeout(spell.timer);
    this.idle.delete(worker);
  }

  /** The worker's answer to `heap`: retired when the rule says so. */
  heard(worker: W, heapBytes: number, startHeapBytes: number): void {
    const spell = this.idle.get(worker);
    // given a run since it was asked: its next idle spell asks again
    if (!spell) return;
    const state = {
      runs: this.pool.runs(worker),
      idleMs: performance.now() - spell.since,
      heapBytes,
      startHeapBytes,
      awaitingResume: this.pool.awaitingResume(worker),
      otherIdle: this.pool.otherIdle(worker),
    };
    const retire = shouldRetire(state, this.settings);
    // kept only for the threads awaiting their resume: the spell goes on, asked again once none does (noneAwaiting)
    if (!retire && shouldRetire({ ...state, awaitingResume: 0 }, this.settings)) return;
    this.busy(worker);
    if (retire) this.pool.retire(worker, state);
  }

  /** The worker is home to no thread awaiting its resume any more: if that alone kept it (idle, asked), it is asked again. */
  noneAwaiting(worker: W): void {
    if (this.idle.get(worker)?.asked) this.pool.askHeap(worker);
  }

  /** Stops every timer (the pool stops). */
  stop(): void {
    for (const worker of [...this.idle.keys()]) this.busy(worker);
  }
}
