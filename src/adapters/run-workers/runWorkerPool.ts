// Graphs execute in a pool of worker threads, so a graph that computes cannot stall the
// request loop. The pool is a RunExecutor: the run lifecycle (claim → execute → finish),
// the queue, per-thread order and cancellation are unchanged; only where the graph runs
// differs. Workers start on demand up to `size` (one is started with the server) and each
// loads the project's graphs once.
//
// Where a run goes (`place`), in the order runs asked:
// - a run of a thread goes to the worker its thread's last run went to while that worker
//   lives (affinity: a graph that keeps per-thread state in its module finds it on resume,
//   as in upstream's single process);
// - else to an idle worker, else a new one while the pool is below its size, else the least
//   busy worker holding runs of the same tenant (async graphs interleave as in-process);
// - a worker holds runs of one tenant at a time (with agent-server auth off everyone is one
//   tenant): another tenant's run waits for an idle worker, so one tenant's graph can never
//   crash, block or time out another tenant's runs;
// - a run suspected of killing its worker (below) runs alone in a worker that ran nothing
//   before, and only then is a crash proven to be its own.
//
// A small pool of our own rather than piscina: a run is not a request/response task but a
// stream of events out, store calls answered in between, and an abort in — and a worker
// that crashes or is terminated must be replaced and its runs accounted for one by one.
//
// On one thread, runs follow one another: each waits for the main thread to record the end of
// the one before, claim it and hand it over (a wake-up of each thread, ~0.7 ms a run). So when
// a run alone in its worker is posted and the server alone claims its thread's runs (the
// embedded store), the worker is also told the thread's next run (`next`): it starts that run
// as soon as the first ends well, from the state the first left, holding back everything the
// run does. When the engine then claims that run and hands it to this worker, the main thread
// reads what the run would have read first; the same reads let the run go on (`go`: its held
// messages are posted, in order, and it is an ordinary run from then on); other reads (its
// thread changed meanwhile), another worker, or no claim within AHEAD_WAIT_MS (it was
// cancelled, say) drop it (`drop`): stopped and discarded, as if never started, before it can
// be posted afresh.
//
// A worker that dies (an exception outside any run, process.exit, out of memory) fails its
// run when that run is the only one it ever ran; otherwise the culprit is unknown, and
// every run in it rejects with PlatformInterruption: the run engine starts each again as
// attempt + 1, alone in a fresh worker, where the guilty one fails and the others succeed.
// A run past its time limit ends its worker at once when alone in it (a graph that never
// yields never sees its signal); sharing a worker, it is aborted first and the worker ended
// only if that does not stop it within `abortGraceMs` (then its neighbours, maybe blocked by
// it, maybe blocking it, are all retried alone). A cancelled run that does not stop within
// `abortGraceMs` ends its worker too, its neighbours retried.
//
// A watchdog ends a run that makes no progress for `stallMs` (AGENTPLANE_RUN_STALL_TIMEOUT_S):
// nothing came of it — no stream event, no store call (each checkpoint is one), no log line,
// no heartbeat. Its worker's heartbeat (`alive`) names the runs whose callbacks came since the
// last, and those waiting on a model or tool call in flight, so a model that thinks for
// minutes is progress; a graph stuck on a promise nothing will settle, or whose loop never
// yields, is not. The stalled run ends `error` with a message that says so, as a run past its
// time limit does (its worker terminated and replaced, neighbours retried alone), whatever its
// time limit: none may run for ever without progress.
import { agentAuthCall, type AgentAuthRequest } from '../../shared/agentAuthGlobal.ts';
import { Worker } from 'node:worker_threads';
import { WatchdogRounds } from './watchdogRounds.ts';
import { projectApiUrl } from '../../shared/projectGlobals.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import type { Store } from '../../domain/ports/store.ts';
import type { MemoryAccess } from '../../domain/memory/langgraphStore.ts';
import { CollectionCheckpoints } from '../embedded/collectionCheckpoints.ts';
import { describeError, ownerOf, type RunError, type RunRecord } from '../../domain/agent/records.ts';
import type { KnownReads, RunExecutor, RunOutput } from '../../domain/agent/runContext.ts';
import { PlatformInterruption, RunTimeout } from '../../domain/agent/runInterruptions.ts';
import type { FromWorker, NextOffer, ToWorker, WorkerSetup } from './protocol.ts';
import { REMOTE_COLLECTION_METHODS, REMOTE_MEMORY_METHODS } from './remoteStore.ts';
import { withTrace } from '../../domain/agent/tracing/failedRunTrace.ts';
import { readFirstReads, readsKey, type FirstReadsKind } from './firstReads.ts';
import { OrderedCalls } from './orderedCalls.ts';
import { dataOf, JsonText } from '../../shared/jsonText.ts';

export interface RunWorkerPoolOptions {
  /** How many workers at most (AGENTPLANE_RUN_WORKERS). */
  size: number;
  setup: WorkerSetup;
  store: Store;
  memory?: MemoryAccess;
  log: Logger;
  /** How long a cancelled run's worker has to end it before it is terminated (default 5 s). */
  abortGraceMs?: number;
  /** Each worker's heap limit in MB (AGENTPLANE_RUN_WORKER_MEMORY_MB); Node's default when absent. */
  memoryMb?: number | null;
  /** The kind of the run's graph, whose first reads are then sent with the run (firstReads.ts). */
  kindOf?: (run: RunRecord) => FirstReadsKind;
  /** Reads those first reads in one step where the store can (PostgreSQL: one statement); through the store's collections when absent. */
  readFirst?: (threadId: string) => Promise<KnownReads>;
  /** A run without progress this long ends `error` and its worker is replaced (see the top of the file); 0 or absent: never. */
  stallMs?: number;
}

interface Task {
  run: RunRecord;
  publish(event: string, data: unknown): void;
  /** The data of the run's last `values` event (the output's values when the worker says so). */
  lastValues?: unknown;
  resolve(output: RunOutput): void;
  reject(err: Error): void;
  /** Store calls still being answered: the run's result waits for them. */
  calls: Set<Promise<void>>;
  cleanup(): void;
  /** When the run last progressed (performance.now()): the watchdog's clock. */
  progressAt: number;
  /** Why the watchdog stopped it: how it ends, however it ends. */
  stalled?: RunError;
}

interface Slot {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  /** The runs posted to it. */
  tasks: Map<string, Task>;
  /** Runs given to it that wait for it to load the project before they are posted. */
  starting: number;
  /** Runs ever given to it: when it dies having run one run only, the death is that run's. */
  served: number;
  /** The tenant of the runs it holds (meaningless while it holds none). */
  tenant: string;
  /** It holds a suspect, alone: nothing joins it until that run ends. */
  exclusive: boolean;
  /** Set before a deliberate termination: why its runs end (`runId` absent: no run is known to be the cause). */
  killed?: { runId?: string; error: RunError };
  /** The uncaught error that is about to end the worker. */
  crash?: Error;
  /** Finish the runs in hand, then stop (dev reload). */
  retiring: boolean;
  /** The store calls it asked to be made in order, by thread (orderedCalls.ts). */
  ordered: OrderedCalls;
  /** Runs offered to it to start ahead (`next`), until it answers whether it did; `withdrawn` is shared with it. */
  offered: Map<string, { answered: Promise<void>; resolve(): void; withdrawn: Int32Array }>;
  /** Runs it started ahead of their claim (see the top of the file), by run id. */
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

/** What says which run the engine claims next on a thread (RunClaims.nextOnThread). */
export type NextOnThread = (threadId: string) => Promise<RunRecord | null>;

/** A run waiting for a worker. */
interface Request {
  run: RunRecord;
  tenant: string;
  suspect: boolean;
  grant(slot: Slot): void;
}

const SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = new URL(SOURCES ? './workerEntry.mjs' : './runWorker.js', import.meta.url);
/** How many threads' workers the pool remembers (the oldest is forgotten first). */
const AFFINITY_LIMIT = 10_000;
/** How many withdrawn runs the pool remembers, so as not to offer one it read as pending a moment before. */
const WITHDRAWN_KEPT = 1_000;
/** How long a run started ahead waits for its claim before it is dropped (a claim comes within a millisecond or so). */
const AHEAD_WAIT_MS = 500;
/** The longest between two heartbeats of a worker and two rounds of the watchdog. */
const HEARTBEAT_MAX_MS = 5_000;

const errorOf = (error: RunError & { stack?: string }) =>
  Object.assign(new Error(error.message), { name: error.error, ...(error.stack ? { stack: error.stack } : {}) });
/** Runs a worker holds: posted, about to be, and started ahead of their claim (until gone on or stopped). */
const load = (slot: Slot) => slot.tasks.size + slot.starting + slot.ahead.size + slot.dropping.size;

export class RunWorkerPool {
  private readonly slots = new Set<Slot>();
  /** Runs waiting for a worker, in the order they asked (none overtakes another: no tenant starves). */
  private readonly waiting: Request[] = [];
  /** Each thread's worker (where its last run went), the oldest first. */
  private readonly homes = new Map<string, Slot>();
  /** Runs that were in a worker that died of an unknown run's fault: each runs alone next. */
  private readonly suspects = new Set<string>();
  private setup: WorkerSetup;
  private stopping = false;
  private nextId = 0;
  private nextOnThread: NextOnThread | undefined;
  /** Runs taken out of the queue lately: one may be found pending just before, and must not be offered after. */
  private readonly withdrawnLately = new Set<string>();

  /** The watchdog's round (see the top of the file). */
  private readonly watchdog: NodeJS.Timeout | undefined;

  constructor(private readonly options: RunWorkerPoolOptions) {
    const stallMs = options.stallMs ?? 0;
    // a heartbeat at a quarter of the limit: three may be lost to a busy machine
    this.setup = { ...options.setup, ...(stallMs > 0 ? { heartbeatMs: Math.max(10, Math.min(stallMs / 4, HEARTBEAT_MAX_MS)) } : {}) };
    if (stallMs > 0) {
      const roundMs = Math.max(10, Math.min(stallMs / 4, HEARTBEAT_MAX_MS));
      const rounds = new WatchdogRounds(roundMs, performance.now());
      this.watchdog = setInterval(() => this.stopStalled(stallMs, rounds), roundMs);
      this.watchdog.unref();
    }
  }

  /** Executes runs in the pool's workers (the run engine's `execute`). */
  readonly execute: RunExecutor = (run, signal, publish, started) => this.executeRun(run, signal, publish, started);

  /** Terminates every worker (after the run engine stopped: runs in flight have ended or were given up). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.watchdog);
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  /** The project changed (dev reload): new runs go to fresh workers; busy ones finish first. */
  reload(setup: WorkerSetup): void {
    this.setup = { ...setup, fresh: true, ...(this.setup.heartbeatMs ? { heartbeatMs: this.setup.heartbeatMs } : {}) };
    for (const slot of this.slots) {
      slot.retiring = true;
      if (load(slot) === 0) void slot.worker.terminate();
    }
    if (!this.stopping) this.spawn();
    this.dispatch();
  }

  /** Ends the runs that made no progress for `stallMs` (see the top of the file). */
  private stopStalled(stallMs: number, rounds: WatchdogRounds): void {
    const now = performance.now();
    // the main thread was away: what the workers said meanwhile is still queued (watchdogRounds.ts)
    const blocked = rounds.blockedBefore(now);
    if (blocked > 0) {
      for (const slot of this.slots) for (const task of slot.tasks.values()) task.progressAt += blocked;
      return;
    }
    for (const slot of this.slots) {
      if (slot.killed) continue;
      for (const task of slot.tasks.values()) {
        if (task.stalled || now - task.progressAt <= stallMs) continue;
        const seconds = Math.round(stallMs / 1000);
        task.stalled = {
          error: 'RunStalled',
          message: `The run made no progress for ${seconds} s (no stream event, checkpoint or store call, and no model or tool call in flight), so it was stopped and its worker replaced (AGENTPLANE_RUN_STALL_TIMEOUT_S=${seconds}). The graph may wait on something that never comes, or use a LangGraph.js release or option this server cannot drive.`,
        };
        this.options.log.warn('a run made no progress; stopping it', { worker: slot.id, run_id: task.run.run_id, seconds });
        // alone, its worker goes at once (a loop that never yields would never see an abort);
        // sharing one, it is aborted, and its worker ended only if that does not stop it
        if (slot.tasks.size === 1) {
          this.kill(slot, task.run.run_id, task.stalled);
          break;
        }
        this.post(slot, { type: 'abort', runId: task.run.run_id });
        const graceMs = this.options.abortGraceMs ?? 5_000;
        setTimeout(() => {
          if (slot.tasks.get(task.run.run_id) === task) this.kill(slot, task.run.run_id, task.stalled!);
        }, graceMs).unref();
      }
    }
  }

  /** Workers alive now (metrics, tests). */
  workers(): number {
    return this.slots.size;
  }

  /** Runs offered to workers to start ahead of their claim so far, how many they started, went on with and dropped (tests). */
  readonly startedAhead = { offered: 0, started: 0, went: 0, dropped: 0 };

  /**
   * A pending run was taken out of the queue unrun (cancelled, deleted): a worker it was
   * offered to does not start it, and one that started it drops it. (A cancel that comes in
   * the millisecond or so between the start and the drop finds it as a cancel at its claim
   * would: its graph had begun.)
   */
  withdrawn(runId: string): void {
    this.withdrawnLately.add(runId);
    if (this.withdrawnLately.size > WITHDRAWN_KEPT) this.withdrawnLately.delete(this.withdrawnLately.values().next().value!);
    for (const slot of this.slots) {
      const offer = slot.offered.get(runId);
      if (offer) Atomics.store(offer.withdrawn, 0, 1);
      if (slot.ahead.has(runId)) void this.drop(slot, runId);
    }
  }

  /** Lets workers start a thread's next run ahead of its claim (see the top of the file); only where this server alone claims runs. */
  startRunsAhead(nextOnThread: NextOnThread): void {
    this.nextOnThread = nextOnThread;
  }

  private async executeRun(run: RunRecord, signal: AbortSignal, publish: (event: string, data: unknown) => void, started?: () => void): Promise<RunOutput> {
    signal.throwIfAborted();
    const slot = await this.acquire(run, signal);
    let known: KnownReads = {};
    let goes = false;
    let following: RunRecord | null = null;
    try {
      await slot.ready;
      known = await this.firstReads(run);
      goes = await this.goesOn(slot, run, known);
      // a run that goes on is told of the run after it with its `go` (one post back for both)
      if (goes) following = await this.nextAfter(run);
    } finally {
      slot.starting -= 1;
    }
    if (signal.aborted) {
      this.released(slot);
      signal.throwIfAborted();
    }
    // the worker died between loading and taking the run: nothing of the run ran
    if (!this.slots.has(slot)) throw new PlatformInterruption({ error: 'WorkerCrashed', message: 'The run worker stopped before the run started.' });
    return new Promise<RunOutput>((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const graceMs = this.options.abortGraceMs ?? 5_000;
      const onAbort = () => {
        const timedOut = signal.reason instanceof RunTimeout;
        if (timedOut && slot.tasks.size === 1) {
          // alone in its worker: a graph that never yields would never see its signal
          this.kill(slot, run.run_id, { error: 'TimeoutError', message: signal.reason.message });
          return;
        }
        this.post(slot, { type: 'abort', runId: run.run_id });
        grace = setTimeout(() => {
          if (!timedOut)
            this.kill(slot, run.run_id, {
              error: 'WorkerStopped',
              message: `The run did not stop within ${graceMs / 1000} s of its cancellation; its worker was terminated.`,
            });
          // a run past its time limit in a worker it shares: it may be the one blocking the
          // worker, or be blocked by another; which is unknown, so all start again alone
          else
            this.kill(slot, undefined, {
              error: 'WorkerStopped',
              message: `The run's worker was terminated: run ${run.run_id} in it exceeded its time limit and did not stop within ${graceMs / 1000} s.`,
            });
        }, graceMs);
        grace.unref();
      };
      const task: Task = {
        run,
        publish,
        resolve,
        reject,
        calls: new Set(),
        progressAt: performance.now(),
        cleanup: () => {
          clearTimeout(grace);
          signal.removeEventListener('abort', onAbort);
        },
      };
      slot.tasks.set(run.run_id, task);
      signal.addEventListener('abort', onAbort, { once: true });
      if (goes) {
        const next = following ? this.offer(slot, run, following) : undefined;
        this.post(slot, { type: 'go', runId: run.run_id, ...(next ? { next } : {}) });
      } else this.post(slot, { type: 'run', run, known });
      started?.();
      if (!goes) this.offerNext(slot, run);
    });
  }

  /**
   * Whether the run was started ahead in this worker and may go on: it read what the main
   * thread reads now. A run started ahead elsewhere, or that assumed other reads, is dropped
   * (and, in this worker, stopped before the run is posted to it afresh).
   */
  private async goesOn(slot: Slot, run: RunRecord, known: KnownReads): Promise<boolean> {
    // whether the worker started it is known once it answers the offer (in the message with the end of the run before)
    await slot.offered.get(run.run_id)?.answered;
    for (const other of this.slots) if (other !== slot && other.ahead.has(run.run_id)) void this.drop(other, run.run_id);
    const ahead = slot.ahead.get(run.run_id);
    if (ahead) {
      slot.ahead.delete(run.run_id);
      clearTimeout(ahead.timer);
      if (ahead.reads === readsKey(known)) {
        this.startedAhead.went += 1;
        this.options.log.debug('a run started ahead of its claim goes on', { worker: slot.id, run_id: run.run_id });
        return true;
      }
      this.options.log.debug('a run started ahead of its claim read what its thread no longer holds; it starts again', { worker: slot.id, run_id: run.run_id });
      void this.drop(slot, run.run_id, ahead);
    }
    await slot.dropping.get(run.run_id)?.stopped;
    return false;
  }

  /** Tells the worker of the run the thread's next run, to start ahead when the run ends well: only for a run alone in its worker, of LangGraph graphs. */
  private offerNext(slot: Slot, run: RunRecord): void {
    if (slot.tasks.size !== 1) return;
    void this.nextAfter(run).then((next) => {
      const offer = next && this.offer(slot, run, next);
      if (offer) this.post(slot, { type: 'next', ...offer });
    });
  }

  /** The run the engine claims on the thread after `run`, when a worker may start it ahead (both of LangGraph graphs, a first attempt). */
  private async nextAfter(run: RunRecord): Promise<RunRecord | null> {
    const kindOf = this.options.kindOf;
    if (!this.nextOnThread || !kindOf || kindOf(run) !== 'langgraph') return null;
    try {
      const next = await this.nextOnThread(run.thread_id);
      if (!next || next.run_id === run.run_id || next.attempt !== 1 || kindOf(next) !== 'langgraph' || this.withdrawnLately.has(next.run_id)) return null;
      return next;
    } catch (err) {
      this.options.log.debug("could not tell a run worker its thread's next run", { err, run_id: run.run_id });
      return null;
    }
  }

  /** Offers `next` to the worker of `run`, while `run` is alone in it (which is still there); the offer to post, if any. */
  private offer(slot: Slot, run: RunRecord, next: RunRecord): NextOffer | undefined {
    if (!this.slots.has(slot) || slot.tasks.size !== 1 || !slot.tasks.has(run.run_id) || slot.offered.has(next.run_id)) return undefined;
    if (this.withdrawnLately.has(next.run_id)) return undefined;
    let resolve!: () => void;
    const answered = new Promise<void>((r) => (resolve = r));
    const withdrawn = new Int32Array(new SharedArrayBuffer(4));
    slot.offered.set(next.run_id, { answered, resolve, withdrawn });
    this.startedAhead.offered += 1;
    return { after: run.run_id, run: next, withdrawn };
  }

  /** A worker started a run ahead of its claim: it is dropped unless claimed within AHEAD_WAIT_MS. */
  private startAhead(slot: Slot, runId: string, reads: string): void {
    this.startedAhead.started += 1;
    const ahead: Ahead = { reads, timer: setTimeout(() => void this.drop(slot, runId, ahead), AHEAD_WAIT_MS) };
    ahead.timer.unref();
    slot.ahead.set(runId, ahead);
  }

  /**
   * Stops a run started ahead and discards it; resolves once the worker says it has stopped.
   * One that does not stop within `abortGraceMs` ends its worker, as a cancelled run does.
   */
  private drop(slot: Slot, runId: string, ahead = slot.ahead.get(runId)): Promise<void> {
    const dropping = slot.dropping.get(runId);
    if (dropping) return dropping.stopped;
    if (!ahead || !this.slots.has(slot)) return Promise.resolve();
    if (slot.ahead.get(runId) === ahead) slot.ahead.delete(runId);
    clearTimeout(ahead.timer);
    this.startedAhead.dropped += 1;
    this.options.log.debug('dropping a run started ahead of its claim', { worker: slot.id, run_id: runId });
    let resolve!: () => void;
    const stopped = new Promise<void>((r) => (resolve = r));
    const graceMs = this.options.abortGraceMs ?? 5_000;
    const grace = setTimeout(
      () =>
        this.kill(slot, undefined, {
          error: 'WorkerStopped',
          message: `The run's worker was terminated: run ${runId}, started in it ahead of its claim and dropped, did not stop within ${graceMs / 1000} s.`,
        }),
      graceMs,
    );
    grace.unref();
    slot.dropping.set(runId, {
      stopped,
      resolve: () => {
        clearTimeout(grace);
        slot.dropping.delete(runId);
        resolve();
      },
    });
    this.post(slot, { type: 'drop', runId });
    return stopped;
  }

  /** Resolves with the worker the run is given (counted in its load), in the order runs asked. */
  private acquire(run: RunRecord, signal: AbortSignal): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(request);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
        this.dispatch();
      };
      const request: Request = {
        run,
        tenant: ownerOf(run),
        suspect: this.suspects.has(run.run_id),
        grant: (slot) => {
          signal.removeEventListener('abort', onAbort);
          resolve(slot);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(request);
      this.dispatch();
    });
  }

  /** Gives waiting runs their workers, first come first served. */
  private dispatch(): void {
    while (this.waiting.length > 0 && !this.stopping) {
      const request = this.waiting[0];
      const slot = this.place(request);
      // the first run that must wait holds up those behind it, so a tenant whose runs keep
      // its workers busy cannot keep another's waiting for ever
      if (!slot) return;
      this.waiting.shift();
      slot.starting += 1;
      slot.served += 1;
      slot.tenant = request.tenant;
      if (request.suspect) {
        slot.exclusive = true;
        this.suspects.delete(request.run.run_id);
      }
      this.homes.delete(request.run.thread_id);
      this.homes.set(request.run.thread_id, slot);
      if (this.homes.size > AFFINITY_LIMIT) this.homes.delete(this.homes.keys().next().value!);
      request.grant(slot);
    }
  }

  /** The worker for a waiting run now, or undefined when it must wait (see the top of the file). */
  private place(request: Request): Slot | undefined {
    const open = [...this.slots].filter((s) => !s.retiring && !s.killed && !s.exclusive);
    if (request.suspect) return this.freshSlot(open);
    const fits = (s: Slot) => load(s) === 0 || s.tenant === request.tenant;
    const home = this.homes.get(request.run.thread_id);
    if (home && open.includes(home) && fits(home)) return home;
    const idle = open.filter((s) => load(s) === 0);
    if (idle.length > 0) return idle.find((s) => s.tenant === request.tenant) ?? idle[0];
    if (this.slots.size < this.options.size || open.length === 0) return this.spawn();
    const same = open.filter((s) => s.tenant === request.tenant);
    return same.length > 0 ? same.reduce((a, b) => (load(b) < load(a) ? b : a)) : undefined;
  }

  /**
   * A worker that has run nothing, for a suspect: an unused one, a new one, or one that
   * replaces an idle worker; with every worker busy, one more than the pool's size (a suspect
   * never waits behind runs that may last for hours; the extra worker goes once idle).
   */
  private freshSlot(open: Slot[]): Slot {
    const unused = open.find((s) => s.served === 0);
    if (unused) return unused;
    const idle = open.find((s) => load(s) === 0);
    if (idle && this.slots.size >= this.options.size) {
      idle.retiring = true;
      void idle.worker.terminate();
    }
    return this.spawn();
  }

  /** A run given to the worker ended (or never started there): it may take other runs now. */
  private released(slot: Slot): void {
    if (load(slot) === 0) {
      // a suspect that ended without killing its worker leaves it an ordinary worker
      slot.exclusive = false;
      const live = [...this.slots].filter((s) => !s.retiring && !s.killed).length;
      // a worker beyond the pool's size (see freshSlot) goes once idle
      if (live > this.options.size && !slot.killed) slot.retiring = true;
      if (slot.retiring) void slot.worker.terminate();
    }
    this.dispatch();
  }

  private spawn(): Slot {
    // a graph that exhausts its heap ends its worker (ERR_WORKER_OUT_OF_MEMORY), not the server
    const resourceLimits = this.options.memoryMb ? { maxOldGenerationSizeMb: this.options.memoryMb } : undefined;
    const worker = new Worker(ENTRY, { workerData: this.setup, stdout: false, stderr: false, resourceLimits });
    let markReady!: () => void;
    let markFailed!: (err: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined);
    const slot: Slot = {
      id: ++this.nextId,
      worker,
      ready,
      tasks: new Map(),
      starting: 0,
      served: 0,
      tenant: '',
      exclusive: false,
      retiring: false,
      ordered: new OrderedCalls(),
      offered: new Map(),
      ahead: new Map(),
      dropping: new Map(),
    };
    this.slots.add(slot);
    const log = this.options.log.child({ worker: slot.id });
    const startedAt = performance.now();
    void ready.then(
      () => log.debug('run worker ready', { ms: Math.round(performance.now() - startedAt) }),
      () => undefined,
    );
    worker.on('message', (message: FromWorker) => this.receive(slot, message, markReady, markFailed));
    worker.on('error', (err) => {
      slot.crash = err;
      log.error('run worker crashed', { err, runs: [...slot.tasks.keys()] });
    });
    worker.on('exit', (code) => {
      this.slots.delete(slot);
      // runs started ahead end with it: nothing of them was posted
      for (const ahead of slot.ahead.values()) clearTimeout(ahead.timer);
      slot.ahead.clear();
      for (const dropping of [...slot.dropping.values()]) dropping.resolve();
      for (const offer of slot.offered.values()) offer.resolve();
      slot.offered.clear();
      for (const [threadId, home] of this.homes) if (home === slot) this.homes.delete(threadId);
      markFailed(slot.crash ?? new Error(`The run worker exited with code ${code} while starting.`));
      const inHand = [...slot.tasks];
      slot.tasks.clear();
      for (const [runId, task] of inHand) {
        task.cleanup();
        task.reject(this.endOf(slot, runId, code));
      }
      const retried = inHand.map(([runId]) => runId).filter((runId) => this.suspects.has(runId));
      if (retried.length > 0)
        log.warn('run worker died with several runs in it; each starts again alone', { runs: retried, cause: this.causeOf(slot, code).message });
      // a worker lost with runs in hand is replaced at once; a retired one by the next run
      if (inHand.length > 0 && !this.stopping && !slot.retiring) this.spawn();
      this.dispatch();
    });
    return slot;
  }

  /** How a run in a worker that ended ends: its own failure, or an interruption to retry. */
  private endOf(slot: Slot, runId: string, code: number): Error {
    if (slot.killed?.runId === runId) return errorOf(slot.killed.error);
    const cause = this.causeOf(slot, code);
    // a worker that never ran anything else died of this run
    if (!slot.killed && slot.served === 1) return errorOf(cause);
    this.suspects.add(runId);
    return new PlatformInterruption({
      error: cause.error,
      message: `${cause.message} Other runs were in that worker or ran in it before, so the run starts again, alone in a fresh worker.`,
    });
  }

  /** What ended a worker. */
  private causeOf(slot: Slot, code: number): RunError {
    if (slot.killed)
      return slot.killed.runId
        ? {
            error: 'WorkerStopped',
            message: `The run's worker was terminated because another run in it (${slot.killed.runId}) had to be stopped: ${slot.killed.error.message}`,
          }
        : slot.killed.error;
    const crash = slot.crash as (Error & { code?: string }) | undefined;
    if (crash?.code === 'ERR_WORKER_OUT_OF_MEMORY') return { error: 'WorkerCrashed', message: 'The run worker ran out of memory; it was replaced.' };
    if (crash) return { error: 'WorkerCrashed', message: `The run worker crashed (${describeError(crash).error}: ${crash.message}); it was replaced.` };
    return { error: 'WorkerCrashed', message: `The run worker exited (code ${code}) while the run was in progress; it was replaced.` };
  }

  private kill(slot: Slot, runId: string | undefined, error: RunError): void {
    if (slot.killed || !this.slots.has(slot)) return;
    slot.killed = { runId, error };
    this.options.log.warn('terminating a run worker', {
      worker: slot.id,
      run_id: runId,
      reason: error.error,
      message: error.message,
      runs: [...slot.tasks.keys()],
    });
    void slot.worker.terminate();
  }

  private receive(slot: Slot, message: FromWorker, markReady: () => void, markFailed: (err: Error) => void): void {
    switch (message.type) {
      case 'ready':
        markReady();
        return;
      case 'loadFailed':
        markFailed(errorOf({ error: 'WorkerStartFailed', message: `The run worker could not load the project's graphs: ${message.error.message}` }));
        void slot.worker.terminate();
        return;
      case 'event': {
        const task = slot.tasks.get(message.runId);
        if (!task) return;
        task.progressAt = performance.now();
        const data = message.text === undefined ? message.data : new JsonText(message.text);
        if (message.event === 'values') task.lastValues = data;
        task.publish(message.event, data);
        return;
      }
      case 'log':
        this.options.log[message.level](message.message, { worker: slot.id, ...message.fields });
        this.progressed(slot);
        return;
      case 'alive':
        for (const runId of message.runIds) {
          const task = slot.tasks.get(runId);
          if (task) task.progressAt = performance.now();
        }
        return;
      case 'batch':
        for (const one of message.messages) this.receive(slot, one, markReady, markFailed);
        return;
      case 'call': {
        const caller = message.run === undefined ? undefined : slot.tasks.get(message.run);
        if (caller) caller.progressAt = performance.now();
        else this.progressed(slot);
        const task = [...slot.tasks.values()];
        const make = () => this.answer(message.target, message.method, message.args);
        const answered = (message.order === undefined ? make() : slot.ordered.run(message.order, make)).then(
          (value) => this.post(slot, { type: 'reply', id: message.id, value }),
          (err: unknown) => this.post(slot, { type: 'reply', id: message.id, error: describeError(err) }),
        );
        // a run's end waits for the writes it asked for (a call belongs to whichever runs are in hand)
        for (const t of task) {
          t.calls.add(answered);
          void answered.finally(() => t.calls.delete(answered));
        }
        return;
      }
      case 'dropped':
        slot.dropping.get(message.runId)?.resolve();
        this.released(slot);
        return;
      case 'ahead':
        slot.offered.get(message.runId)?.resolve();
        slot.offered.delete(message.runId);
        if (message.reads !== null) this.startAhead(slot, message.runId, message.reads);
        return;
      case 'done':
      case 'failed': {
        const task = slot.tasks.get(message.runId);
        if (!task) return;
        slot.tasks.delete(message.runId);
        task.cleanup();
        void Promise.allSettled([...task.calls]).then(() => {
          // the thread's next run orders its writes afresh, unless a run of it is still in this worker
          const threadId = task.run.thread_id;
          const alone = ![...slot.tasks.values()].some((t) => t.run.thread_id === threadId);
          // a worker does not wait for the answers to the writes it asked to be made in order
          // (StoreCheckpointer's settledOrOrdered): the first that failed fails the run here
          const failed = message.type === 'done' && alone ? slot.ordered.failure(threadId) : undefined;
          if (alone) slot.ordered.end(threadId);
          // stopped by the watchdog: its end says why, whatever the abort made of it
          if (task.stalled) task.reject(withTrace(errorOf(task.stalled), message.type === 'failed' ? (message.trace ?? []) : []));
          else if (failed) task.reject(withTrace(errorOf(describeError(failed.error)), message.type === 'done' ? (message.output.trace ?? []) : []));
          else if (message.type === 'done')
            task.resolve(message.valuesAsLastEvent ? { ...message.output, values: dataOf(task.lastValues) as RunOutput['values'] } : message.output);
          else task.reject(withTrace(errorOf(message.error), message.trace ?? []));
        });
        this.released(slot);
        return;
      }
    }
  }

  /** A log line of a worker, or a call of no run it holds: which of its runs made it is not known, so each counts as progressing. */
  private progressed(slot: Slot): void {
    const now = performance.now();
    for (const task of slot.tasks.values()) task.progressAt = now;
  }

  /** What the run reads first, for the worker to be sent with it; nothing when it cannot be read (the worker then reads it). */
  private async firstReads(run: RunRecord): Promise<KnownReads> {
    const kind = this.options.kindOf?.(run);
    if (!kind) return {};
    try {
      return await (this.options.readFirst ? this.options.readFirst(run.thread_id) : readFirstReads(this.options.store, run, kind));
    } catch (err) {
      this.options.log.debug('could not read ahead what a run reads first; its worker reads it', { err, run_id: run.run_id });
      return {};
    }
  }

  /** The store as the main thread alone reads and writes it. */
  private async answer(target: string, method: string, args: unknown[]): Promise<unknown> {
    if (target === 'write') return this.options.store.write(args[0] as never);
    if (target === 'apiUrl') return projectApiUrl();
    if (target === 'agentAuth') {
      const authenticate = agentAuthCall();
      if (!authenticate) throw new Error('authenticate() needs the control plane, which this server does not run');
      return authenticate(args[0] as AgentAuthRequest);
    }
    if (target === 'newestCheckpoint') return new CollectionCheckpoints(this.options.store).newest(String(args[0]));
    if (target === 'collection' && REMOTE_COLLECTION_METHODS.has(method)) {
      const [name, options, ...rest] = args as [string, { indexes?: string[] }, ...unknown[]];
      const collection = this.options.store.collection<object>(name, options) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return collection[method](...rest);
    }
    if (target === 'memory' && REMOTE_MEMORY_METHODS.has(method) && this.options.memory) {
      const memory = this.options.memory as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return memory[method](...args);
    }
    throw new Error(`a run worker asked for ${target}.${method}, which the main thread does not answer`);
  }

  private post(slot: Slot, message: ToWorker): void {
    if (this.slots.has(slot)) slot.worker.postMessage(message);
  }
}
