// Runs-ahead: a decorator of the run worker pool's executor, put in front of it by the
// composition root where one server alone claims its threads' runs (the embedded store; with
// replicas sharing the queue any of them may take a thread's next run, so none is known).
//
// On one thread, runs follow one another: each waits for the main thread to record the end of
// the one before, claim it and hand it over (a wake-up of each thread, ~0.7 ms a run). So when
// a run alone in its worker is posted, the worker is also told the thread's next run (`next`):
// it starts that run as soon as the first ends well, from the state the first left, holding
// back everything the run does. When the engine then claims that run and hands it to this
// worker, the main thread reads what the run would have read first; the same reads let the run
// go on (`go`: its held messages are posted, in order, and it is an ordinary run from then on);
// other reads (its thread changed meanwhile), another worker, or no claim within AHEAD_WAIT_MS
// (it was cancelled, say) drop it (`drop`): stopped and discarded, as if never started, before
// it can be posted afresh. The pool (runWorkerPool.ts) places, posts and accounts for runs; this
// file alone knows which runs a worker started ahead.
import type { Logger } from '../../domain/ports/logger.ts';
import type { RunRecord } from '../../domain/agent/records.ts';
import type { KnownReads, RunExecutor } from '../../domain/agent/graphs/runContext.ts';
import type { FirstReadsKind } from './firstReads.ts';
import { sameReads } from './firstReads.ts';
import type { FromWorker, NextOffer } from './protocol.ts';
import type { Handing, Handover, RunWorkerPool, Slot, WarmUpStores, WorkerWatch } from './runWorkerPool.ts';

/** The run this server claims next on a thread, once its running run ends; null when there is none yet. */
export type NextOnThread = (threadId: string) => Promise<RunRecord | null>;

export interface RunsAheadOptions {
  /** Which first reads a run makes: only runs of LangGraph graphs are started ahead. */
  kindOf: (run: RunRecord) => FirstReadsKind;
  log: Logger;
  /** How long a dropped run has to stop before its worker is terminated (the pool's, default 5 s). */
  abortGraceMs?: number;
}

/** What runs-ahead keeps of one worker. */
interface WorkerAhead {
  /** Runs offered to it to start ahead (`next`), until it answers whether it did; `withdrawn` is shared with it. */
  offered: Map<string, { answered: Promise<void>; resolve(): void; withdrawn: Int32Array }>;
  /** Runs it started ahead of their claim, by run id. */
  ahead: Map<string, Ahead>;
  /** Runs started ahead it was told to drop, until it says they stopped. */
  dropping: Map<string, { stopped: Promise<void>; resolve(): void }>;
}

/** A run a worker started ahead of its claim. */
interface Ahead {
  /** The key of the first reads it assumed (firstReads.ts). */
  reads: string;
  /** Drops it when it is not claimed in time. */
  timer: NodeJS.Timeout;
}

/** How many withdrawn runs are remembered, so as not to offer one read as pending a moment before. */
const WITHDRAWN_KEPT = 1_000;
/** How long a run started ahead waits for its claim before it is dropped (a claim comes within a millisecond or so). */
const AHEAD_WAIT_MS = 500;

export class RunsAhead implements Handover, WorkerWatch {
  /** Runs offered to workers to start ahead of their claim so far, how many they started, went on with and dropped (tests). */
  readonly startedAhead = { offered: 0, started: 0, went: 0, dropped: 0 };
  /** Runs taken out of the queue lately: one may be found pending just before, and must not be offered after. */
  private readonly withdrawnLately = new Set<string>();
  private readonly workers = new Map<Slot, WorkerAhead>();

  constructor(
    private readonly pool: RunWorkerPool,
    private readonly nextOnThread: NextOnThread,
    private readonly options: RunsAheadOptions,
  ) {
    pool.watchWorkers(this);
  }

  /** The pool's executor, each run handed over through runs-ahead (the run engine's `execute`). */
  readonly execute: RunExecutor = (run, signal, publish, started) => this.pool.run(run, signal, publish, started, this);

  /** The pool's executor of the warm-up's runs (warmUpExecutor), handed over through runs-ahead as the project's runs are. */
  warmUpExecutor(stores: WarmUpStores): RunExecutor {
    return this.pool.warmUpExecutor(stores, this);
  }

  /**
   * A pending run was taken out of the queue unrun (cancelled, deleted): a worker it was
   * offered to does not start it, and one that started it drops it. (A cancel that comes in
   * the millisecond or so between the start and the drop finds it as a cancel at its claim
   * would: its graph had begun.)
   */
  withdrawn(runId: string): void {
    this.withdrawnLately.add(runId);
    if (this.withdrawnLately.size > WITHDRAWN_KEPT) this.withdrawnLately.delete(this.withdrawnLately.values().next().value!);
    for (const [slot, kept] of this.workers) {
      const offer = kept.offered.get(runId);
      if (offer) Atomics.store(offer.withdrawn, 0, 1);
      if (kept.ahead.has(runId)) void this.drop(slot, runId);
    }
  }

  /** A run that was started ahead in its worker goes on there; any other is posted afresh, and offers the thread's next run. */
  async prepare(slot: Slot, run: RunRecord, known: KnownReads): Promise<Handing> {
    if (!(await this.goesOn(slot, run, known))) return { message: () => ({ type: 'run', run, known }), posted: () => this.offerNext(slot, run) };
    // a run that goes on is told of the run after it with its `go` (one post back for both)
    const following = await this.nextAfter(run);
    return {
      message: () => {
        const next = following ? this.offer(slot, run, following) : undefined;
        return { type: 'go', runId: run.run_id, ...(next ? { next } : {}) };
      },
      posted: () => undefined,
    };
  }

  receive(slot: Slot, message: Extract<FromWorker, { type: 'ahead' | 'dropped' }>): void {
    const kept = this.of(slot);
    if (message.type === 'dropped') {
      kept.dropping.get(message.runId)?.resolve();
      this.pool.released(slot);
      return;
    }
    kept.offered.get(message.runId)?.resolve();
    kept.offered.delete(message.runId);
    if (message.reads !== null) this.startAhead(slot, message.runId, message.reads);
  }

  /** Runs started ahead end with their worker: nothing of them was posted. */
  exited(slot: Slot): void {
    const kept = this.workers.get(slot);
    if (!kept) return;
    this.workers.delete(slot);
    for (const ahead of kept.ahead.values()) clearTimeout(ahead.timer);
    kept.ahead.clear();
    for (const dropping of [...kept.dropping.values()]) dropping.resolve();
    for (const offer of kept.offered.values()) offer.resolve();
    kept.offered.clear();
  }

  /** Runs the worker holds started ahead of their claim (until gone on or stopped): they count in its load. */
  held(slot: Slot): number {
    const kept = this.workers.get(slot);
    return kept ? kept.ahead.size + kept.dropping.size : 0;
  }

  private of(slot: Slot): WorkerAhead {
    let kept = this.workers.get(slot);
    if (!kept) this.workers.set(slot, (kept = { offered: new Map(), ahead: new Map(), dropping: new Map() }));
    return kept;
  }

  /**
   * Whether the run was started ahead in this worker and may go on: it read what the main
   * thread reads now. A run started ahead elsewhere, or that assumed other reads, is dropped
   * (and, in this worker, stopped before the run is posted to it afresh).
   */
  private async goesOn(slot: Slot, run: RunRecord, known: KnownReads): Promise<boolean> {
    // whether the worker started it is known once it answers the offer (in the message with the end of the run before)
    await this.workers.get(slot)?.offered.get(run.run_id)?.answered;
    for (const [other, kept] of this.workers) if (other !== slot && kept.ahead.has(run.run_id)) void this.drop(other, run.run_id);
    const kept = this.workers.get(slot);
    const ahead = kept?.ahead.get(run.run_id);
    if (kept && ahead) {
      kept.ahead.delete(run.run_id);
      clearTimeout(ahead.timer);
      if (sameReads(ahead.reads, known)) {
        this.startedAhead.went += 1;
        this.options.log.debug('a run started ahead of its claim goes on', { worker: slot.id, run_id: run.run_id });
        return true;
      }
      this.options.log.debug('a run started ahead of its claim read what its thread no longer holds; it starts again', { worker: slot.id, run_id: run.run_id });
      void this.drop(slot, run.run_id, ahead);
    }
    await this.workers.get(slot)?.dropping.get(run.run_id)?.stopped;
    return false;
  }

  /** Tells the worker of the run the thread's next run, to start ahead when the run ends well: only for a run alone in its worker, of LangGraph graphs. */
  private offerNext(slot: Slot, run: RunRecord): void {
    if (slot.tasks.size !== 1) return;
    void this.nextAfter(run).then((next) => {
      const offer = next && this.offer(slot, run, next);
      if (offer) this.pool.post(slot, { type: 'next', ...offer });
    });
  }

  /** The run the engine claims on the thread after `run`, when a worker may start it ahead (both of LangGraph graphs, a first attempt). */
  private async nextAfter(run: RunRecord): Promise<RunRecord | null> {
    // a warm-up's run (agentplane's LangGraph graph) asks the warm-up's own runs, never the server's
    const warmUp = this.pool.warmUpOf(run.run_id);
    const kindOf: (run: RunRecord) => FirstReadsKind = warmUp ? () => 'langgraph' : this.options.kindOf;
    if (kindOf(run) !== 'langgraph') return null;
    try {
      const next = await (warmUp ? (warmUp.nextOnThread ?? (async () => null)) : this.nextOnThread)(run.thread_id);
      if (!next || next.run_id === run.run_id || next.attempt !== 1 || kindOf(next) !== 'langgraph' || this.withdrawnLately.has(next.run_id)) return null;
      return next;
    } catch (err) {
      this.options.log.debug("could not tell a run worker its thread's next run", { err, run_id: run.run_id });
      return null;
    }
  }

  /** Offers `next` to the worker of `run`, while `run` is alone in it (which is still there); the offer to post, if any. */
  private offer(slot: Slot, run: RunRecord, next: RunRecord): NextOffer | undefined {
    if (!this.pool.holds(slot) || slot.tasks.size !== 1 || !slot.tasks.has(run.run_id)) return undefined;
    const kept = this.of(slot);
    if (kept.offered.has(next.run_id) || this.withdrawnLately.has(next.run_id)) return undefined;
    let resolve!: () => void;
    const answered = new Promise<void>((r) => (resolve = r));
    const withdrawn = new Int32Array(new SharedArrayBuffer(4));
    kept.offered.set(next.run_id, { answered, resolve, withdrawn });
    this.startedAhead.offered += 1;
    return { after: run.run_id, run: next, withdrawn };
  }

  /** A worker started a run ahead of its claim: it is dropped unless claimed within AHEAD_WAIT_MS. */
  private startAhead(slot: Slot, runId: string, reads: string): void {
    this.startedAhead.started += 1;
    const ahead: Ahead = { reads, timer: setTimeout(() => void this.drop(slot, runId, ahead), AHEAD_WAIT_MS) };
    ahead.timer.unref();
    this.of(slot).ahead.set(runId, ahead);
  }

  /**
   * Stops a run started ahead and discards it; resolves once the worker says it has stopped.
   * One that does not stop within `abortGraceMs` ends its worker, as a cancelled run does.
   */
  private drop(slot: Slot, runId: string, ahead = this.workers.get(slot)?.ahead.get(runId)): Promise<void> {
    const kept = this.workers.get(slot);
    const dropping = kept?.dropping.get(runId);
    if (dropping) return dropping.stopped;
    if (!kept || !ahead || !this.pool.holds(slot)) return Promise.resolve();
    if (kept.ahead.get(runId) === ahead) kept.ahead.delete(runId);
    clearTimeout(ahead.timer);
    this.startedAhead.dropped += 1;
    this.options.log.debug('dropping a run started ahead of its claim', { worker: slot.id, run_id: runId });
    let resolve!: () => void;
    const stopped = new Promise<void>((r) => (resolve = r));
    const graceMs = this.options.abortGraceMs ?? 5_000;
    const grace = setTimeout(
      () =>
        this.pool.kill(slot, undefined, {
          error: 'WorkerStopped',
          message: `The run's worker was terminated: run ${runId}, started in it ahead of its claim and dropped, did not stop within ${graceMs / 1000} s.`,
        }),
      graceMs,
    );
    grace.unref();
    kept.dropping.set(runId, {
      stopped,
      resolve: () => {
        clearTimeout(grace);
        kept.dropping.delete(runId);
        resolve();
      },
    });
    this.pool.post(slot, { type: 'drop', runId });
    return stopped;
  }
}
