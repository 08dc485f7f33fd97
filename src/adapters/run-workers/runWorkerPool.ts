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
// - a tenant's runs hold all but one of the workers at most (a pool of one: that one), those of
//   the shared space of auth off and of a server of one tenant too: past that its runs join its
//   least busy worker, so another tenant's run finds a worker free or room for one. Holding every
//   worker, a flooding tenant kept another's run waiting until every run of its in one worker had
//   ended, nearly one of its runs when they had started together (issue 83), whatever the run
//   slots left free. Where no other tenant is expected (auth off, one tenant) the worker left is
//   started only when another's run comes: on 2 cores one run worker beside the main thread did the
//   same runs with 0.55–0.79× the machine's CPU of two (one isolate compiling LangChain and
//   LangGraph, not two; fewer wake-ups of three busy threads on two cores: issue 86, h86r, in
//   scripts/bench/findings.md), and a graph that computes holds up its own tenant's runs only;
// - a run suspected of killing its worker (below) runs alone in a worker that ran nothing
//   before, and only then is a crash proven to be its own.
//
// A small pool of our own rather than piscina: a run is not a request/response task but a
// stream of events out, store calls answered in between, and an abort in — and a worker
// that crashes or is terminated must be replaced and its runs accounted for one by one.
//
// How a run is handed to its worker is the Handover's: posted afresh here; a decorator
// (runsAhead.ts, put in front by the composition root) lets a worker start a thread's next run
// ahead of its claim and hands it over by letting it go on.
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
//
// A worker that has held no run for a while and whose heap grew well past its start (a burst of
// large runs), or while another worker is idle too (a burst of runs across threads), is ended,
// its isolate's memory with it (idleRetirement.ts, runtime/idle/workerRetirement.ts): V8 gives a
// worker's heap back late or never once it is idle, and one idle worker takes the next run warm. The next run that finds no worker
// starts one, as the first run after the server's start does. A worker is kept while it is home to
// a thread whose last run there stopped for input (`awaiting`): the human's answer, whenever it
// comes, resumes the thread there and finds the graph's module state (affinity, above).
import { agentAuthCall, type AgentAuthRequest } from '../../shared/agentAuthGlobal.ts';
import { Worker } from 'node:worker_threads';
import { WatchdogRounds } from './watchdogRounds.ts';
import { keepYoungGenerationFloor } from './youngGenerationFloor.ts';
import { projectApiUrl } from '../../shared/projectGlobals.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import type { Store, WriteOp } from '../../domain/ports/store.ts';
import type { MemoryAccess } from '../../domain/memory/langgraphStore.ts';
import { CollectionCheckpoints } from '../embedded/collectionCheckpoints.ts';
import { describeError, ownerOf, type RunError, type RunRecord } from '../../domain/agent/records.ts';
import { waitsForInput, type KnownReads, type RunExecutor, type RunOutput } from '../../domain/agent/graphs/runContext.ts';
import { PlatformInterruption, RunTimeout } from '../../domain/agent/runs/runInterruptions.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';
import { REMOTE_COLLECTION_METHODS, REMOTE_MEMORY_METHODS } from './remoteStore.ts';
import { withTrace } from '../../domain/agent/tracing/failedRunTrace.ts';
import type { FirstReadsKind } from './firstReads.ts';
import type { RunStore } from '../../domain/ports/runStore.ts';
import { OrderedCalls } from './orderedCalls.ts';
import { batchGroups, isOrderedWrite } from './batchGroups.ts';
import { ReplyOutbox } from './replyOutbox.ts';
import { OwnHeads } from './ownHeads.ts';
import { asPut, type TextPut, type TextPutWrites } from '../embedded/textPut.ts';
import { dataOf, JsonText } from '../../shared/jsonText.ts';
import { frozenFromJson } from '../../domain/freeze.ts';
import { IdleRetirement } from './idleRetirement.ts';
import type { RetirementSettings } from '../../runtime/idle/workerRetirement.ts';

export interface RunWorkerPoolOptions {
  /** How many workers at most (AGENTPLANE_RUN_WORKERS). */
  size: number;
  /** The server serves several tenants: the worker a tenant at its share leaves to the others is started ahead of their runs. */
  tenantShares?: boolean;
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
  /** Where those first reads are read (the run store; PostgreSQL: in one statement). */
  runs: Pick<RunStore, 'firstReads'>;
  /**
   * How a held thread's checkpoint writes, made in order, are written to `store` (PostgreSQL:
   * with the events of the runs here waiting to be appended, PgRunEventLog.writeCarrying);
   * absent: `store.write`.
   */
  orderedWrite?: (ops: WriteOp[]) => Promise<void>;
  /**
   * The collections whose puts the workers send as their text and kept fields alone, and the
   * write of `store` that takes them (the embedded store writing a journal: textPut.ts).
   */
  textPuts?: TextPutWrites;
  /** A run without progress this long ends `error` and its worker is replaced (see the top of the file); 0 or absent: never. */
  stallMs?: number;
  /** When an idle worker is ended to give its memory back (runtime/idle/workerRetirement.ts's default when absent; null: never). */
  retirement?: RetirementSettings | null;
}

interface Task {
  run: RunRecord;
  publish(event: string, data: unknown): void;
  /** The data of the run's last `values` event (the output's values when the worker says so). */
  lastValues?: unknown;
  resolve(output: RunOutput): void;
  reject(err: Error): void;
  cleanup(): void;
  /** The number its worker's first call after it was in hand takes (Slot's `calls`): its end waits for those still being made from there. */
  firstCall: number;
  /** When the run last progressed (performance.now()): the watchdog's clock. */
  progressAt: number;
  /** Why the watchdog stopped it: how it ends, however it ends. */
  stalled?: RunError;
}

/** A worker of the pool, with the runs it was given (a decorator, runsAhead.ts, reads its id and tasks). */
export interface Slot {
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
  /**
   * Its store calls still being made, each with its number (counted in `callsMade`): a run's
   * end waits for those made since it was in hand (a call belongs to whichever runs are in
   * hand). One map, not a set in each run: at ~10 runs in hand that was ~46 promise reactions
   * a run on the main thread (issue 86).
   */
  calls: Map<Promise<void>, number>;
  callsMade: number;
  /** Its heap (committed, bytes) once it was ready: a retirement measures growth from it. */
  startHeapBytes: number;
  /** What is posted to it: the answers to its calls together once a turn, anything else at once after them (replyOutbox.ts). */
  outbox: ReplyOutbox;
  /** The threads it is home to whose last run here stopped for input: it is not retired while any waits for its resume. */
  awaiting: Set<string>;
}

/** How a run is handed to the worker it was given: posted afresh (`run`) unless a decorator says otherwise. */
export interface Handover {
  /** The worker is ready and the run's first reads are read; the run is not in the worker's hands yet. */
  prepare(slot: Slot, run: RunRecord, known: KnownReads): Promise<Handing>;
}

export interface Handing {
  /** The message that hands the run over, made once the run is in the worker's hands. */
  message(): ToWorker;
  /** Called once it was posted (and the run's clock started). */
  posted(): void;
}

/** What a decorator of the pool hears of its workers. */
export interface WorkerWatch {
  /** A message of a worker the pool leaves to the decorator. */
  receive(slot: Slot, message: Extract<FromWorker, { type: 'ahead' | 'dropped' }>): void;
  /** The worker ended. */
  exited(slot: Slot): void;
  /** Runs the decorator keeps in the worker besides those posted to it: they count in its load. */
  held(slot: Slot): number;
}

/** Each run posted afresh, as it is (the pool alone). */
const AFRESH: Handover = {
  prepare: async (_slot, run, known) => ({ message: () => ({ type: 'run', run, known }), posted: () => undefined }),
};

/** The warm-up found no idle worker, or a run waiting: it is not run (nothing is to be warmed while runs are). */
export class WarmUpSkipped extends Error {
  override name = 'WarmUpSkipped';
  constructor() {
    super('The warm-up takes only an idle worker with no run waiting.');
  }
}

const UNWATCHED: WorkerWatch = { receive: () => undefined, exited: () => undefined, held: () => 0 };

/** What a warm-up run's store calls, first reads and next run on its thread are answered from: the warm-up's own store and runs, never the server's. */
export interface WarmUpStores {
  store: Store;
  runs: Pick<RunStore, 'firstReads'>;
  /** The run claimed next on a warm-up's thread (a decorator that starts runs ahead asks, runsAhead.ts). */
  nextOnThread?: (threadId: string) => Promise<RunRecord | null>;
}

/** A run waiting for a worker. */
interface Request {
  run: RunRecord;
  tenant: string;
  suspect: boolean;
  /** A warm-up's run (warmUpExecutor): it counts in no worker's load, not even while it starts. */
  warmUp: boolean;
  grant(slot: Slot): void;
}

const SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = new URL(SOURCES ? './workerEntry.mjs' : './runWorker.js', import.meta.url);
/** How many threads' workers the pool remembers (the oldest is forgotten first). */
const AFFINITY_LIMIT = 10_000;
/** The longest between two heartbeats of a worker and two rounds of the watchdog. */
const HEARTBEAT_MAX_MS = 5_000;
/**
 * Most ops in one batch of a thread's checkpoint writes (OrderedCalls.batch): a store write of
 * up to this many upserts is one statement on PostgreSQL (pgStore.ts's ONE_STATEMENT_MAX);
 * more would be a transaction, more statements than the writes it joined.
 */
const BATCH_OPS = 16;
const fitsOneWrite = (batch: WriteOp[][], next: WriteOp[][]) => [...batch, ...next].reduce((n, ops) => n + ops.length, 0) <= BATCH_OPS;
type CallMessage = Extract<FromWorker, { type: 'call' }>;
const opsOf = (message: CallMessage) => message.args[0] as WriteOp[];

const toMb = (bytes: number) => Math.round(bytes / 104857.6) / 10;

const errorOf = (error: RunError & { stack?: string }) =>
  Object.assign(new Error(error.message), { name: error.error, ...(error.stack ? { stack: error.stack } : {}) });

export class RunWorkerPool {
  private readonly slots = new Set<Slot>();
  /** Runs waiting for a worker, in the order they asked (none overtakes another: no tenant starves). */
  private readonly waiting: Request[] = [];
  /** The warm-up's runs in the workers (warmUpExecutor), with what their calls and first reads are answered from: they count in no worker's load. */
  private readonly warmUps = new Map<string, WarmUpStores>();
  /** Each thread's worker (where its last run went), the oldest first. */
  private readonly homes = new Map<string, Slot>();
  /** Runs that were in a worker that died of an unknown run's fault: each runs alone next. */
  private readonly suspects = new Set<string>();
  private setup: WorkerSetup;
  /** Which worker holds a thread's newest checkpoint itself (ownHeads.ts). */
  private readonly ownHeads = new OwnHeads((thread) => this.options.textPuts?.mark(thread));
  private stopping = false;
  private nextId = 0;
  /** What a decorator (runsAhead.ts) keeps in the workers and hears of them. */
  private watch: WorkerWatch = UNWATCHED;

  /** The watchdog's round (see the top of the file). */
  private readonly watchdog: NodeJS.Timeout | undefined;
  /** Ends large idle workers, and idle ones beside another (see the top of the file); none when retirement is off. */
  private readonly retirement: IdleRetirement<Slot> | undefined;

  constructor(private readonly options: RunWorkerPoolOptions) {
    const stallMs = options.stallMs ?? 0;
    // a heartbeat at a quarter of the limit: three may be lost to a busy machine
    this.setup = { ...options.setup, ...this.textPutSetup(), ...(stallMs > 0 ? { heartbeatMs: Math.max(10, Math.min(stallMs / 4, HEARTBEAT_MAX_MS)) } : {}) };
    if (stallMs > 0) {
      const roundMs = Math.max(10, Math.min(stallMs / 4, HEARTBEAT_MAX_MS));
      const rounds = new WatchdogRounds(roundMs, performance.now());
      this.watchdog = setInterval(() => this.stopStalled(stallMs, rounds), roundMs);
      this.watchdog.unref();
    }
    if (options.retirement !== null)
      this.retirement = new IdleRetirement<Slot>(
        {
          runs: (slot) => this.load(slot),
          awaitingResume: (slot) => slot.awaiting.size,
          otherIdle: (slot) => [...this.slots].filter((s) => s !== slot && !s.retiring && !s.killed && this.load(s) === 0).length,
          askHeap: (slot) => this.post(slot, { type: 'heap' }),
          retire: (slot, why) => this.retire(slot, why),
        },
        options.retirement,
      );
  }

  /** Executes runs in the pool's workers, each posted afresh (the run engine's `execute`, unless a decorator is in front). */
  readonly execute: RunExecutor = (run, signal, publish, started) => this.run(run, signal, publish, started, AFRESH);

  /**
   * Executes runs of agentplane's warm-up graph (domain/agent/warmUpGraph.ts) in a worker as the
   * project's runs are, their first reads read and the worker's store calls answered from `stores`
   * (the warm-up's own, never the server's): the main thread's warm-up (compose/runPathWarmUp.ts) sends its runs through the
   * pool's and the workers' run path this way, and nothing of them reaches the server's store.
   * A run only takes a worker that is idle with no run waiting (else it is refused: WarmUpSkipped),
   * so it never starts a worker nor holds up a run; and it counts in no worker's load, so a run
   * that comes meanwhile goes to that worker beside it rather than to a new one. `handover`: that
   * of the decorator in front of the pool (runsAhead.ts), so that its path is the project's runs'.
   */
  warmUpExecutor(stores: WarmUpStores, handover: Handover = AFRESH): RunExecutor {
    return async (run, signal, publish, started) => {
      const open = [...this.slots].some((s) => !s.retiring && !s.killed && !s.exclusive && this.load(s) === 0);
      if (this.stopping || this.waiting.length > 0 || !open) throw new WarmUpSkipped();
      this.warmUps.set(run.run_id, stores);
      try {
        return await this.run(run, signal, publish, started, handover);
      } finally {
        this.warmUps.delete(run.run_id);
      }
    };
  }

  /** Lets a decorator (runsAhead.ts) keep runs of its own in the workers: it hears of their messages and ends, and its runs count in their load. */
  watchWorkers(watch: WorkerWatch): void {
    this.watch = watch;
  }

  /** Runs a worker holds: posted, about to be, and those a decorator keeps in it. */
  private load(slot: Slot): number {
    let warmUps = 0;
    if (this.warmUps.size > 0) for (const runId of slot.tasks.keys()) if (this.warmUps.has(runId)) warmUps += 1;
    return slot.tasks.size - warmUps + slot.starting + this.watch.held(slot);
  }

  /**
   * Starts a worker ahead of the first run (AGENTPLANE_RUN_WORKER_WARMUP), so that run finds the
   * project's graphs loaded instead of paying for it: a worker's start (LangGraph and the graphs
   * loaded, ~1 s of a core) was most of a first run's time to its first token. Resolves once the
   * worker is ready (or could not start: the first run then starts another, as without it).
   */
  async warm(): Promise<void> {
    if (this.stopping || this.slots.size > 0) return;
    await this.spawn().ready.catch(() => undefined);
  }

  /** Terminates every worker (after the run engine stopped: runs in flight have ended or were given up). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.watchdog);
    this.retirement?.stop();
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  /** The project changed (dev reload): new runs go to fresh workers; busy ones finish first. */
  reload(setup: WorkerSetup): void {
    this.setup = { ...setup, fresh: true, ...this.textPutSetup(), ...(this.setup.heartbeatMs ? { heartbeatMs: this.setup.heartbeatMs } : {}) };
    for (const slot of this.slots) {
      slot.retiring = true;
      if (this.load(slot) === 0) void slot.worker.terminate();
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

  /** Executes the run in a worker, handed over as `handover` says (a decorator's `execute` calls this). */
  async run(
    run: RunRecord,
    signal: AbortSignal,
    publish: (event: string, data: unknown) => void,
    started: (() => void) | undefined,
    handover: Handover,
  ): Promise<RunOutput> {
    signal.throwIfAborted();
    const warmUp = this.warmUps.has(run.run_id);
    const slot = await this.acquire(run, signal, warmUp);
    // let go once posted: the closures below keep this function's variables for the run's life,
    // and its message holds the run's first reads (a thread's newest checkpoint, its values' text)
    let handing: Handing | undefined;
    try {
      await slot.ready;
      handing = await handover.prepare(slot, run, await this.firstReads(run, slot));
    } finally {
      if (!warmUp) slot.starting -= 1;
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
        firstCall: slot.callsMade + 1,
        progressAt: performance.now(),
        cleanup: () => {
          clearTimeout(grace);
          signal.removeEventListener('abort', onAbort);
        },
      };
      slot.tasks.set(run.run_id, task);
      signal.addEventListener('abort', onAbort, { once: true });
      const message = handing!.message();
      // a warm-up's run is marked, so that the worker's calls for it are answered from the warm-up's store
      this.post(slot, warmUp && message.type === 'run' ? { ...message, warmUp: true } : message);
      started?.();
      handing!.posted();
      handing = undefined;
    });
  }

  /** Resolves with the worker the run is given (counted in its load unless a warm-up's), in the order runs asked. */
  private acquire(run: RunRecord, signal: AbortSignal, warmUp = false): Promise<Slot> {
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
        warmUp,
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
      if (!request.warmUp) slot.starting += 1;
      slot.served += 1;
      this.retirement?.busy(slot);
      slot.tenant = request.tenant;
      if (request.suspect) {
        slot.exclusive = true;
        this.suspects.delete(request.run.run_id);
      }
      this.moveHome(request.run.thread_id, slot);
      request.grant(slot);
      // a tenant that now holds its share: the worker left for the others starts now, so another
      // tenant's next run does not wait for a worker's start (~1 s of a core loading the graphs);
      // with no others expected it starts with their first run (see the top of the file)
      if (this.options.tenantShares && this.slots.size < this.options.size && this.atShare(this.heldBy(request.tenant))) this.spawn();
    }
  }

  /** The workers holding runs of `tenant` now. */
  private heldBy(tenant: string): number {
    let held = 0;
    for (const s of this.slots) if (!s.retiring && !s.killed && !s.exclusive && this.load(s) > 0 && s.tenant === tenant) held++;
    return held;
  }

  /** The thread's runs go to `slot` from now (the newest home); the oldest home is forgotten past AFFINITY_LIMIT. */
  private moveHome(threadId: string, slot: Slot): void {
    const before = this.homes.get(threadId);
    // its resume no longer comes to the worker it left
    if (before && before !== slot) this.notAwaiting(before, threadId);
    this.homes.delete(threadId);
    this.homes.set(threadId, slot);
    if (this.homes.size > AFFINITY_LIMIT) {
      const [oldest, home] = this.homes.entries().next().value!;
      this.homes.delete(oldest);
      this.notAwaiting(home, oldest);
    }
  }

  /** The thread was deleted: where its runs went is forgotten, and its worker no longer awaits its resume. */
  forget(threadId: string): void {
    const home = this.homes.get(threadId);
    if (!home) return;
    this.homes.delete(threadId);
    this.notAwaiting(home, threadId);
  }

  /** A run of the thread ended in the worker: it awaits the thread's resume when the run stopped for input (in the thread's home), and no longer otherwise. */
  private ended(slot: Slot, threadId: string, waits: boolean): void {
    if (waits && this.homes.get(threadId) === slot) slot.awaiting.add(threadId);
    else this.notAwaiting(slot, threadId);
  }

  /** The worker no longer awaits the thread's resume; once it awaits none, its retirement is considered again. */
  private notAwaiting(slot: Slot, threadId: string): void {
    if (slot.awaiting.delete(threadId) && slot.awaiting.size === 0) this.retirement?.noneAwaiting(slot);
  }

  /** The worker for a waiting run now, or undefined when it must wait (see the top of the file). */
  private place(request: Request): Slot | undefined {
    const open = [...this.slots].filter((s) => !s.retiring && !s.killed && !s.exclusive);
    if (request.suspect) return this.freshSlot(open);
    const held = open.filter((s) => this.load(s) > 0 && s.tenant === request.tenant);
    // its share taken, a tenant's run goes to a worker of its own, never to one more
    const atShare = this.atShare(held.length);
    const fits = (s: Slot) => (this.load(s) === 0 ? !atShare : s.tenant === request.tenant);
    const home = this.homes.get(request.run.thread_id);
    if (home && open.includes(home) && fits(home)) return home;
    if (!atShare) {
      const idle = open.filter((s) => this.load(s) === 0);
      if (idle.length > 0) return idle.find((s) => s.tenant === request.tenant) ?? idle[0];
      if (this.slots.size < this.options.size || open.length === 0) return this.spawn();
    }
    return held.length > 0 ? held.reduce((a, b) => (this.load(b) < this.load(a) ? b : a)) : undefined;
  }

  /** Whether a tenant whose runs are in `held` workers holds all it may: all but one of the pool's, the one of a pool of one (every tenant, the shared space too). */
  private atShare(held: number): boolean {
    return held >= Math.max(1, this.options.size - 1);
  }

  /**
   * A worker that has run nothing, for a suspect: an unused one, a new one, or one that
   * replaces an idle worker; with every worker busy, one more than the pool's size (a suspect
   * never waits behind runs that may last for hours; the extra worker goes once idle).
   */
  private freshSlot(open: Slot[]): Slot {
    const unused = open.find((s) => s.served === 0);
    if (unused) return unused;
    const idle = open.find((s) => this.load(s) === 0);
    if (idle && this.slots.size >= this.options.size) {
      idle.retiring = true;
      void idle.worker.terminate();
    }
    return this.spawn();
  }

  /** A run given to the worker ended (or never started there): it may take other runs now. */
  released(slot: Slot): void {
    if (this.load(slot) === 0) {
      // a suspect that ended without killing its worker leaves it an ordinary worker
      slot.exclusive = false;
      const live = [...this.slots].filter((s) => !s.retiring && !s.killed).length;
      // a worker beyond the pool's size (see freshSlot) goes once idle
      if (live > this.options.size && !slot.killed) slot.retiring = true;
      if (slot.retiring) void slot.worker.terminate();
      else this.retirement?.idleFrom(slot);
    }
    this.dispatch();
  }

  /** Ends an idle worker whose heap grew large, or one beside another idle worker (see the top of the file): its memory goes with it. */
  private retire(slot: Slot, why: { idleMs: number; heapBytes: number; startHeapBytes: number; otherIdle: number }): void {
    if (this.load(slot) > 0 || slot.retiring || slot.killed || !this.slots.has(slot)) return;
    slot.retiring = true;
    this.options.log.debug('retiring an idle run worker to give its memory back', {
      worker: slot.id,
      idle_s: Math.round(why.idleMs / 1000),
      heap_mb: toMb(why.heapBytes),
      start_heap_mb: toMb(why.startHeapBytes),
      other_idle: why.otherIdle,
    });
    void slot.worker.terminate();
  }

  private spawn(): Slot {
    keepYoungGenerationFloor();
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
      calls: new Map(),
      callsMade: 0,
      startHeapBytes: 0,
      awaiting: new Set(),
      outbox: new ReplyOutbox((message) => {
        if (this.slots.has(slot)) worker.postMessage(message);
      }),
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
      this.watch.exited(slot);
      this.retirement?.busy(slot);
      for (const [threadId, home] of this.homes) if (home === slot) this.homes.delete(threadId);
      slot.awaiting.clear();
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

  /** Terminates the worker; its runs end as `error` says (`runId`: the run that caused it, if known). */
  kill(slot: Slot, runId: string | undefined, error: RunError): void {
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
        slot.startHeapBytes = message.heapBytes;
        markReady();
        return;
      case 'heap':
        this.retirement?.heard(slot, message.bytes, slot.startHeapBytes);
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
        // a held thread's checkpoint writes posted together are made as one write (as many as one takes)
        for (const one of batchGroups(message.messages, (group, next) => fitsOneWrite(group.map(opsOf), [opsOf(next)]))) {
          if (Array.isArray(one)) this.calls(slot, one);
          else this.receive(slot, one, markReady, markFailed);
        }
        return;
      case 'call':
        this.calls(slot, [message]);
        return;
      case 'dropped':
      case 'ahead':
        this.watch.receive(slot, message);
        return;
      case 'done':
      case 'failed': {
        const task = slot.tasks.get(message.runId);
        if (!task) return;
        slot.tasks.delete(message.runId);
        task.cleanup();
        const threadId = task.run.thread_id;
        this.ended(slot, threadId, message.type === 'done' && !task.stalled && waitsForInput(message.output));
        const calls: Promise<void>[] = [];
        for (const [call, n] of slot.calls) if (n >= task.firstCall) calls.push(call);
        void Promise.allSettled(calls).then(() => {
          // the thread's next run orders its writes afresh, unless a run of it is still in this worker
          const alone = ![...slot.tasks.values()].some((t) => t.run.thread_id === threadId);
          // a worker does not wait for the answers to the writes it asked to be made in order
          // (StoreCheckpointer's settledOrOrdered), and is not answered at all for those it posted
          // `unanswered` — also once another run of the thread came in beside it: the first that
          // failed fails the run here, as it fails every run holding the thread in the worker
          const failed = message.type === 'done' ? slot.ordered.failure(threadId) : undefined;
          if (alone) slot.ordered.end(threadId);
          // it failed after all: its thread does not wait for input
          if (failed) this.ended(slot, threadId, false);
          // the worker keeps the end state of a run that ended well (StoreCheckpointer.endedHead)
          this.ownHeads.ended(threadId, slot.id, message.type === 'done' && !task.stalled && !failed);
          // stopped by the watchdog: its end says why, whatever the abort made of it
          if (task.stalled) task.reject(withTrace(errorOf(task.stalled), message.type === 'failed' ? (message.trace ?? []) : []));
          else if (failed) task.reject(withTrace(errorOf(describeError(failed.error)), message.type === 'done' ? (message.output.trace ?? []) : []));
          else if (message.type === 'done')
            task.resolve(
              message.valuesAsLastEvent
                ? { ...message.output, values: endValues(task.lastValues) as RunOutput['values'] }
                : message.valuesText !== undefined
                  ? { ...message.output, values: frozenFromJson(message.valuesText) as RunOutput['values'] }
                  : message.output,
            );
          else task.reject(withTrace(errorOf(message.error), message.trace ?? []));
        });
        this.released(slot);
        return;
      }
    }
  }

  /**
   * Answers a worker's calls: one, or several writes to be made in order under one key (a held
   * thread's checkpoint writes), which pile up behind one being made and go as one write.
   */
  private calls(slot: Slot, group: CallMessage[]): void {
    for (const message of group) {
      const caller = message.run === undefined ? undefined : slot.tasks.get(message.run);
      if (caller) caller.progressAt = performance.now();
      else this.progressed(slot);
    }
    const [first] = group;
    // a warm-up run's calls reach the warm-up's store alone, and none once the run is over
    const store = first.warmUp ? this.warmUps.get(first.run ?? '')?.store : this.options.store;
    const make = () => (store ? this.answer(first, store) : Promise.reject(new Error('a warm-up run that is over made a call')));
    const made: Promise<unknown> =
      first.order === undefined
        ? make()
        : isOrderedWrite(first) && store
          ? slot.ordered.batch(first.order, group.map(opsOf), (batch) => this.writeOrdered(store, batch.flat(), slot, first.order!), fitsOneWrite)
          : slot.ordered.run(first.order, make);
    // a run's end waits for the writes it asked for (see Slot's `calls`)
    const answered: Promise<void> = group.some((message) => !message.unanswered)
      ? made.then(
          (value) => {
            for (const message of group) if (!message.unanswered) slot.outbox.reply({ type: 'reply', id: message.id, value });
          },
          (err: unknown) => {
            const error = describeError(err);
            for (const message of group) if (!message.unanswered) slot.outbox.reply({ type: 'reply', id: message.id, error });
          },
        )
      : // the failure is kept by the thread's ordered calls, for the run's end
        made.then(
          () => undefined,
          () => undefined,
        );
    slot.calls.set(answered, ++slot.callsMade);
    const settled = () => void slot.calls.delete(answered);
    void answered.then(settled, settled);
  }

  /** What the workers are told of the TextPuts the store takes (none: they send every put with its value). */
  private textPutSetup(): Pick<WorkerSetup, 'textPuts'> {
    return this.options.textPuts ? { textPuts: this.options.textPuts.collections } : {};
  }

  /**
   * A held thread's checkpoint writes, made in order (see `orderedWrite`, `textPuts`); a warm-up's
   * go to its own store, their TextPuts as the puts they stand for.
   */
  private writeOrdered(store: Store, ops: (WriteOp | TextPut)[], slot: Slot, thread: string): Promise<void> {
    const { orderedWrite, textPuts } = this.options;
    if (store !== this.options.store) return store.write(ops.map(asPut));
    // the thread's mark as this write left it: the worker's memory holds the thread's newest checkpoint while it stands
    if (textPuts) return textPuts.write(ops, thread).then((mark) => this.ownHeads.wrote(thread, slot.id, mark));
    if (!orderedWrite) return store.write(ops as WriteOp[]);
    // made once the worker's message in hand is handled: the events it posted after these writes
    // (a step's `values` follows its checkpoint's put) are published by then, and go with them
    return Promise.resolve().then(() => orderedWrite(ops as WriteOp[]));
  }

  /** A log line of a worker, or a call of no run it holds: which of its runs made it is not known, so each counts as progressing. */
  private progressed(slot: Slot): void {
    const now = performance.now();
    for (const task of slot.tasks.values()) task.progressAt = now;
  }

  /** What the run reads first, for the worker to be sent with it; nothing when it cannot be read (the worker then reads it). */
  private async firstReads(run: RunRecord, slot: Slot): Promise<KnownReads> {
    // a warm-up run's graph is agentplane's LangGraph graph, its first reads the warm-up's
    const warmUp = this.warmUps.get(run.run_id);
    const kind = warmUp ? 'langgraph' : this.options.kindOf?.(run);
    if (!kind) return {};
    try {
      // the worker holds the newest checkpoint itself: the plain head alone is read
      if (!warmUp && kind === 'langgraph' && this.ownHeads.holds(run.thread_id, slot.id))
        return { ...(await this.options.runs.firstReads(run.thread_id, 'plain')), ownCheckpoint: true };
      return await (warmUp?.runs ?? this.options.runs).firstReads(run.thread_id, kind);
    } catch (err) {
      this.options.log.debug('could not read ahead what a run reads first; its worker reads it', { err, run_id: run.run_id });
      return {};
    }
  }

  /** The store as the main thread alone reads and writes it (a warm-up's call: the warm-up's store, and nothing else). */
  private async answer({ target, method, args, warmUp }: CallMessage, store: Store): Promise<unknown> {
    if (target === 'write') return store.write(args[0] as never);
    if (target === 'newestCheckpoint') return new CollectionCheckpoints(store).newest(String(args[0]));
    if (target === 'collection' && REMOTE_COLLECTION_METHODS.has(method)) {
      const [name, options, ...rest] = args as [string, { indexes?: string[] }, ...unknown[]];
      const collection = store.collection<object>(name, options) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return collection[method](...rest);
    }
    if (warmUp) throw new Error(`a warm-up run asked for ${target}.${method}, which is answered to the project's runs alone`);
    if (target === 'apiUrl') return projectApiUrl();
    if (target === 'agentAuth') {
      const authenticate = agentAuthCall();
      if (!authenticate) throw new Error('authenticate() needs the control plane, which this server does not run');
      return authenticate(args[0] as AgentAuthRequest);
    }
    if (target === 'memory' && REMOTE_MEMORY_METHODS.has(method) && this.options.memory) {
      const memory = this.options.memory as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return memory[method](...args);
    }
    throw new Error(`a run worker asked for ${target}.${method}, which the main thread does not answer`);
  }

  /** Posts to the worker while it lives. */
  post(slot: Slot, message: ToWorker): void {
    slot.outbox.send(message);
  }

  /** What a warm-up's run (warmUpExecutor) is answered from; undefined for any other run. */
  warmUpOf(runId: string): WarmUpStores | undefined {
    return this.warmUps.get(runId);
  }

  /** Whether the worker is still the pool's (it has not exited). */
  holds(slot: Slot): boolean {
    return this.slots.has(slot);
  }
}

/**
 * A run's values at its end, from its last `values` event: while no reader has parsed the event's
 * text, a frozen parse of its own that keeps the text as its JSON (frozenFromJson), so the store
 * writes the thread's values as that text instead of serialising them again (issue 91); the
 * event keeps its text unparsed for its readers. Else the event's data, as its readers have it.
 */
function endValues(data: unknown): unknown {
  return data instanceof JsonText && !data.isParsed ? frozenFromJson(data.text) : dataOf(data);
}
