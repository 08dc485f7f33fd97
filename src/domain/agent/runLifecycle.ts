// The one owner of run and thread statuses. Every transition is written here, and only here:
//
//   thread  (none) → idle                     newThread: created by createThread or by a run
//   run     (none) → pending, thread → busy   enqueue
//   run     pending → running                 claim (a worker takes it)
//   run     running → success | error | timeout | interrupted, thread → idle | busy | error | interrupted
//                                             finish (busy while other runs wait on the thread;
//                                             timeout: the run outlived AGENTPLANE_RUN_TIMEOUT_S)
//   run     running → deleted                 finish after a rollback (the thread moves on)
//   run     running → pending                 finish after a shutdown (it resumes on restart)
//   run     pending → interrupted | deleted   cancel before it started (thread idle if nothing waits)
//   run     running → (abort requested)       cancel while it runs; finish records the end
//   run     final → (unchanged)               cancel after it finished (accepted, as upstream)
//   run     any → deleted                     deleteRun (rolled back first when in flight)
//   thread  → deleted, with its run           discard: a stateless run's temporary thread, once
//                                             the run has ended (on_completion: delete)
//   run     running → pending (attempt + 1) | error, thread → error
//                                             recover after a crash (error after MAX_ATTEMPTS)
//   run     running → pending (attempt + 1) | error
//                                             the platform interrupted it: its worker died with
//                                             other runs in it (PlatformInterruption), or its
//                                             store could not be reached; see retryInterrupted
//   thread  any → deleted, with its runs      removeThread (runs in flight rolled back first)
//
// It also owns the run queue and the map of runs in flight, so nothing else can see a run
// between two of these steps.
//
// Two ways to queue: on the embedded store one server owns every run, and an in-process
// RunQueue orders them; when replicas share the store (`claims` given), the pending run
// records are the queue and a replica executes a run once it holds its claim (a lease it
// renews; the others take over the claims of a replica that is gone, as after a restart:
//   run     running → pending (attempt + 1) | error   takeOver, by a surviving replica).
import type { Assistant, Run, RunCreate, RunResult, ThreadStatus } from '../../../generated/agent-server/types.gen.ts';
import type { Logger } from '../ports/logger.ts';
import type { Collection, Store, WriteOp } from '../ports/store.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import type { RunClaims, RunEvents } from './runSharing.ts';
import type { StoreCheckpointer } from './checkpointer.ts';
import type { RunExecutor, RunOutput } from './runContext.ts';
import { nowIso } from '../clock.ts';
import { uuid7 } from './ids.ts';
import type { PlainStateStore } from './plainState.ts';
import { FINAL_STATUSES, ownerOf, describeError, errorResult, notBefore, runKwargs, toApiRun, type RunError, type RunRecord, type ThreadRecord } from './records.ts';
import { mergeRunConfig, type RunCaller } from './runConfig.ts';
import { RunQueue, type QueuedRun } from './runQueue.ts';
import { retryUntilDone } from '../retry.ts';
import { isStoreUnavailable } from '../../shared/storeErrors.ts';

/** How many times a run may be started again after the server died under it. */
export const MAX_ATTEMPTS = 3;

export type CancelAction = 'interrupt' | 'rollback';
/** `lost`: another replica took the run's claim over (this one was thought gone); it writes nothing more. */
type StopReason = CancelAction | 'shutdown' | 'timeout' | 'lost';

/** What listeners (webhooks, metrics) learn when a run has ended and its end is recorded. */
export interface RunEnded {
  run: Run;
  /** The thread's values after a successful run. */
  values?: Record<string, unknown>;
  error?: RunError;
  startedAt: Date;
  endedAt: Date;
  /** From creation to the start of execution. */
  queuedMs: number;
}

export interface LifecycleDeps {
  /** Called once per run that reached a final status (not for shutdowns or rollbacks). */
  onRunEnded?: (ended: RunEnded) => void;
  store: Store;
  runs: Collection<RunRecord>;
  threads: Collection<ThreadRecord>;
  broker: RunEvents;
  /** The shared run queue when replicas share the store; the in-process queue without it. */
  claims?: RunClaims;
  /** How long a claim lasts without renewal (renewed every third of it). */
  leaseMs?: number;
  plain: PlainStateStore;
  checkpointer: StoreCheckpointer;
  execute: RunExecutor;
  log: Logger;
  maxConcurrentRuns: number;
  /** First wait before recording a run's end is tried again (doubling, up to 5 s). */
  retryMs?: number;
  /** A run still executing after this long is stopped and ends in `timeout` (0 or absent: no limit). */
  runTimeoutMs?: number;
}

/**
 * The abort reason of a run that exceeded its time limit: the executor may end it at once
 * (a worker is terminated) rather than wait for the graph to notice its signal.
 */
export class RunTimeout extends Error {
  constructor(readonly limitMs: number) {
    super(`The run exceeded its time limit of ${limitMs / 1000} s (AGENTPLANE_RUN_TIMEOUT_S) and was stopped.`);
    this.name = 'RunTimeout';
  }
}

/**
 * The executor's error for a run interrupted by the platform through no proven fault of its
 * graph (a run worker died while other runs were in it, or had run in it): the run starts
 * again as attempt + 1 instead of failing. `reason` says what happened.
 */
export class PlatformInterruption extends Error {
  constructor(readonly reason: RunError) {
    super(reason.message);
    this.name = 'PlatformInterruption';
  }
}

interface InFlight {
  controller: AbortController;
  stop: StopReason | null;
}

/** `interrupted`: the platform, not the graph, cut the run short (see platformInterruption); it is tried again. */
type Ending =
  | { kind: 'success'; output: RunOutput }
  | { kind: 'error'; error: RunError }
  | { kind: 'stopped'; reason: StopReason }
  | { kind: 'interrupted'; cause: RunError };

export function newThread(threadId: string, metadata: Record<string, unknown>, owner: string): ThreadRecord {
  const now = nowIso();
  return { thread_id: threadId, ...(owner ? { owner } : {}), created_at: now, updated_at: now, metadata, status: 'idle', config: {}, interrupts: {} };
}

/**
 * Why a run that failed was cut short by the platform rather than by its graph, or null when
 * the failure is the graph's: its run worker died through another run's fault
 * (PlatformInterruption), or its store (the database, the data directory) could not be
 * reached for the run's checkpoints or bookkeeping. Such a run is tried again (retryInterrupted).
 */
function platformInterruption(err: unknown): RunError | null {
  if (err instanceof PlatformInterruption) return err.reason;
  if (isStoreUnavailable(err)) return { error: 'StoreUnavailable', message: err instanceof Error ? err.message : String(err) };
  return null;
}

/** A stateless run whose thread is deleted when it ends (`on_completion: delete`). */
const isTemporary = (run: RunRecord) => run.kwargs.temporary === true;

export class RunLifecycle {
  private readonly queue: RunQueue;
  /** Runs a worker has taken, by run id; registered before the claim so no cancel is lost. */
  private readonly inFlight = new Map<string, InFlight>();
  /** Aborted on stop: an end that could not be recorded by then is recovered on the next start. */
  private readonly stopping = new AbortController();
  private readonly shared: SharedQueue | null;

  constructor(private readonly deps: LifecycleDeps) {
    this.queue = new RunQueue(deps.maxConcurrentRuns, (run) => this.execute(run));
    this.shared = deps.claims ? new SharedQueue(this, deps.claims, deps.maxConcurrentRuns, deps.leaseMs ?? 30_000, deps.log) : null;
  }

  /** How many runs are executing now (metrics). */
  executing(): number {
    return this.inFlight.size;
  }

  /** Run ids queued or running on the thread, the running one first, then the pending ones in receipt order. */
  async inflight(threadId: string): Promise<string[]> {
    // pending first: a run that turns running between the two reads is in both (kept once);
    // read the other way round it could be in neither
    const pending = await this.deps.runs.list({ where: { thread_id: threadId, status: 'pending' } });
    const running = await this.deps.runs.list({ where: { thread_id: threadId, status: 'running' } });
    return [...new Set([...running, ...pending].map((r) => r.run_id))];
  }

  /**
   * Stores a new pending run and marks its thread busy (creating the thread when absent).
   * The run records its assistant and graph, so it executes that graph whatever runs after it.
   * `owner` is the caller's (see ownerOf), who has checked the thread is theirs or absent.
   */
  async enqueue(threadId: string, assistant: Assistant, body: RunCreate, options: { temporary?: boolean; owner: string; caller?: RunCaller }): Promise<RunRecord> {
    const now = nowIso();
    const { owner } = options;
    const runId = uuid7();
    const existing = await this.deps.threads.get(threadId);
    const base = existing ?? newThread(threadId, {}, owner);
    const threadMetadata = { ...base.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id };
    // as upstream: a thread the run creates contributes no metadata to the run's
    const merged = mergeRunConfig(assistant, existing && { config: existing.config, metadata: threadMetadata }, body, { run_id: runId, thread_id: threadId, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id }, options.caller);
    const run: RunRecord = {
      run_id: runId,
      ...(owner ? { owner } : {}),
      thread_id: threadId,
      assistant_id: assistant.assistant_id,
      graph_id: assistant.graph_id,
      created_at: now,
      updated_at: now,
      status: 'pending',
      // the assistant's, the thread's and the request's, as upstream's runs show it
      metadata: merged.metadata,
      // temporary, subgraphs, resumable: the flags upstream's runs show under these names
      kwargs: { ...runKwargs(body), config: merged.config, context: merged.context, temporary: options.temporary === true, subgraphs: body.stream_subgraphs ?? false, resumable: body.stream_resumable ?? false },
      multitask_strategy: body.multitask_strategy ?? 'enqueue',
      attempt: 1,
    };
    const thread: ThreadRecord = {
      ...base,
      status: 'busy',
      updated_at: now,
      metadata: threadMetadata,
      // upstream keeps a busy thread's config as it is (the running run's)
      config: base.status === 'busy' ? base.config : merged.threadConfig,
    };
    await this.deps.store.write([
      { collection: this.deps.threads.name, id: threadId, value: thread },
      { collection: this.deps.runs.name, id: run.run_id, value: run },
    ]);
    await this.deps.broker.open(run.run_id, owner, threadId);
    if (this.shared) await this.shared.queued();
    else this.queue.enqueue({ runId: run.run_id, threadId, notBefore: notBefore(run) });
    return run;
  }

  /** A pending run ends at once; a running one is asked to stop and `finish` records its end. */
  async cancel(threadId: string, runId: string, action: CancelAction): Promise<Outcome<RunRecord, 'not_found'>> {
    const run = await this.deps.runs.get(runId);
    if (!run || run.thread_id !== threadId) return fail('not_found', 'Run not found');
    // upstream accepts a cancel that comes too late and changes nothing
    if (FINAL_STATUSES.has(run.status)) return ok(run);
    const cancelled: RunRecord = { ...run, status: 'interrupted', updated_at: nowIso() };
    if (await this.withdraw(run)) {
      const thread = await this.deps.threads.get(threadId);
      const idle = (await this.inflight(threadId)).filter((id) => id !== runId).length === 0;
      await this.deps.store.write([
        action === 'rollback' ? { collection: this.deps.runs.name, id: runId, delete: true } : { collection: this.deps.runs.name, id: runId, value: cancelled },
        ...(thread && idle ? [{ collection: this.deps.threads.name, id: threadId, value: { ...thread, status: 'idle' as const, updated_at: cancelled.updated_at } }] : []),
      ]);
      await this.deps.broker.end(runId);
      if (isTemporary(run)) await this.discard(threadId);
      return ok(cancelled);
    }
    if (!this.stopLocal(runId, action)) await this.deps.claims?.requestCancel(runId, action);
    return ok(run);
  }

  /**
   * Takes a run that has not started out of the queue, so it never will; false when it has
   * started (or is starting) already. With a shared queue the run record is the queue entry:
   * it is marked `interrupted` while still pending, atomically against a claim.
   */
  private async withdraw(run: RunRecord): Promise<boolean> {
    if (!this.shared) return this.queue.remove(run.thread_id, run.run_id) || (run.status === 'pending' && !this.inFlight.has(run.run_id));
    let took = false;
    await this.deps.runs.update(run.run_id, (current) => (current.status === 'pending' ? ((took = true), { ...current, status: 'interrupted', updated_at: nowIso() }) : undefined));
    return took;
  }

  /** Asks a run executing on this server to stop; false when it is not executing here. */
  stopLocal(runId: string, reason: StopReason): boolean {
    const running = this.inFlight.get(runId);
    if (!running) return false;
    if (!running.stop) running.stop = reason;
    running.controller.abort();
    return true;
  }

  /** The ids of the runs executing on this server. */
  executingIds(): string[] {
    return [...this.inFlight.keys()];
  }

  /** Rolls back the thread's runs in flight, waits for them to stop, then deletes everything. */
  async removeThread(threadId: string): Promise<void> {
    const inflight = await this.inflight(threadId);
    for (const runId of inflight) await this.cancel(threadId, runId, 'rollback');
    // let a running graph stop before its state is removed, or it could write after us
    for (const runId of inflight) await this.deps.broker.ended(runId);
    await this.discard(threadId);
  }

  /**
   * Deletes a run's record. A run in flight is rolled back first (what it wrote is undone)
   * and waited for; a finished run's checkpoints stay in the thread's history.
   */
  async deleteRun(threadId: string, runId: string): Promise<Outcome<void, 'not_found'>> {
    const run = await this.deps.runs.get(runId);
    if (!run || run.thread_id !== threadId) return fail('not_found', 'Run not found');
    if (!FINAL_STATUSES.has(run.status)) {
      await this.cancel(threadId, runId, 'rollback');
      await this.deps.broker.ended(runId);
    }
    if (await this.deps.runs.get(runId)) await this.deps.store.write([{ collection: this.deps.runs.name, id: runId, delete: true }]);
    await this.deps.broker.drop(runId);
    return ok(undefined);
  }

  /** Deletes a thread with its runs and its state (nothing of it may be in flight). */
  private async discard(threadId: string): Promise<void> {
    const runs = await this.deps.runs.list({ where: { thread_id: threadId } });
    await this.deps.store.write([
      ...runs.map((r) => ({ collection: this.deps.runs.name, id: r.run_id, delete: true as const })),
      ...(await this.deps.plain.deleteOps(threadId)),
      { collection: this.deps.threads.name, id: threadId, delete: true },
    ]);
    await this.deps.checkpointer.deleteThread(threadId);
  }

  /**
   * After a restart: pending runs are queued again in the order they were received. A run
   * that was `running` when the server died starts again as a new attempt (the `metadata`
   * event carries `attempt`); after MAX_ATTEMPTS crashes it ends in `error` instead, so a
   * run that kills the server cannot do so forever. Either way it is logged, never dropped.
   */
  async recover(): Promise<void> {
    // shared: pending runs are in the queue already; runs of replicas that are gone are taken over
    if (this.shared) return this.shared.takeOver();
    const { runs, threads, store, log } = this.deps;
    const running = await runs.list({ where: { status: 'running' } });
    const requeued = await runs.list({ where: { status: 'pending' } });
    const ops: WriteOp[] = [];
    const now = nowIso();
    const failedThreads = new Set<string>();
    for (const run of running) {
      const next = this.abandoned(run);
      ops.push({ collection: runs.name, id: run.run_id, value: next });
      if (next.status === 'pending') requeued.push(next);
      else failedThreads.add(run.thread_id);
    }
    const stillQueued = new Set(requeued.map((r) => r.thread_id));
    for (const threadId of failedThreads) {
      const thread = await threads.get(threadId);
      if (thread && !stillQueued.has(threadId)) ops.push({ collection: threads.name, id: threadId, value: { ...thread, status: 'error', updated_at: now } });
    }
    await store.write(ops);
    if (requeued.length) log.info('runs queued again after restart', { count: requeued.length });
    requeued.sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0));
    for (const run of requeued) {
      await this.deps.broker.open(run.run_id, ownerOf(run), run.thread_id);
      this.queue.enqueue({ runId: run.run_id, threadId: run.thread_id, notBefore: notBefore(run) });
    }
  }

  /** A run that was `running` when its server died (see retryInterrupted). */
  abandoned(run: RunRecord): RunRecord {
    return this.retryInterrupted(run, null);
  }

  /**
   * A run the platform cut short — its server died (`cause` null), or its store could not
   * be reached while it ran (`cause` says how) — never its graph: a new attempt, or `error`
   * after MAX_ATTEMPTS (so a run that brings its platform down cannot do so forever).
   * Logged either way. The one place a run is started again.
   */
  retryInterrupted(run: RunRecord, cause: RunError | null): RunRecord {
    const now = nowIso();
    const fields = { run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt, ...(cause ? { cause: cause.message } : {}) };
    if (run.attempt >= MAX_ATTEMPTS) {
      const error = cause
        ? { error: 'RunInterruptedByPlatform', message: `The platform interrupted this run ${run.attempt} times (last: ${cause.message}); it was not started again.` }
        : { error: 'RunInterruptedByServerRestart', message: `The server stopped while this run was in progress, ${run.attempt} times; it was not started again.` };
      this.deps.log.warn(cause ? 'run abandoned after repeated interruptions by the platform' : 'run abandoned after repeated server crashes', fields);
      return { ...run, status: 'error', updated_at: now, error };
    }
    this.deps.log.warn(cause ? 'the platform interrupted the run; starting it again' : 'run was in progress when the server stopped; starting it again', { ...fields, attempt: run.attempt + 1 });
    return { ...run, status: 'pending', attempt: run.attempt + 1, updated_at: now };
  }

  /** A thread whose run was abandoned for good is `error`, unless more runs wait on it. */
  async failThread(threadId: string): Promise<void> {
    if ((await this.inflight(threadId)).length > 0) return;
    await this.deps.threads.update(threadId, (thread) => ({ ...thread, status: 'error', updated_at: nowIso() }));
  }

  start(): void {
    if (this.shared) this.shared.start();
    else this.queue.start();
  }

  /** Stops taking runs; runs in flight go back to pending and resume after a restart. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const runId of this.inFlight.keys()) this.stopLocal(runId, 'shutdown');
    // a graph that ignores its abort signal must not hold the shutdown forever; its run
    // then stays `running` in the store and is treated like a crash on the next start
    const stopped = this.shared ? this.shared.stop() : this.queue.stop();
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  }

  /** claim → execute → finish. Whatever the graph does, `finish` records the end and closes the log. */
  private async execute(queued: QueuedRun): Promise<void> {
    const running: InFlight = { controller: new AbortController(), stop: null };
    this.inFlight.set(queued.runId, running);
    const claimed = await this.deps.runs.update(queued.runId, (r) => (r.status === 'pending' ? { ...r, status: 'running', updated_at: nowIso() } : undefined));
    if (!claimed || claimed.status !== 'running') {
      this.inFlight.delete(queued.runId);
      return;
    }
    await this.executeClaimed(claimed, running);
  }

  /** Registers a run claimed from the shared queue as in flight here; call before any await. */
  track(runId: string): InFlight {
    const running: InFlight = { controller: new AbortController(), stop: null };
    this.inFlight.set(runId, running);
    return running;
  }

  /** execute → finish for a run this server holds (status `running`). */
  async executeClaimed(run: RunRecord, running: InFlight): Promise<void> {
    const started = Date.now();
    const log = this.deps.log.child({ run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt });
    const publish = (event: string, data: unknown) => this.deps.broker.publish(run.run_id, event, data);
    const limitMs = this.deps.runTimeoutMs ?? 0;
    let timer: NodeJS.Timeout | undefined;
    // the limit counts from the graph's start, not from a wait for a worker to load
    const startClock = () => {
      if (limitMs <= 0 || timer) return;
      timer = setTimeout(() => {
        if (running.stop) return;
        running.stop = 'timeout';
        running.controller.abort(new RunTimeout(limitMs));
      }, limitMs);
      timer.unref();
    };
    let ending: Ending = { kind: 'error', error: { error: 'InternalError', message: 'The run ended unexpectedly.' } };
    try {
      await this.deps.broker.begin(run.run_id);
      publish('metadata', { run_id: run.run_id, attempt: run.attempt });
      const output = await this.deps.execute(run, running.controller.signal, publish, startClock);
      ending = running.stop ? { kind: 'stopped', reason: running.stop } : { kind: 'success', output };
    } catch (err) {
      const interruption = platformInterruption(err);
      // a time limit reached in a worker another run blocked is no fault of this run either
      const platformsFault = interruption !== null && (!running.stop || (running.stop === 'timeout' && err instanceof PlatformInterruption));
      ending = platformsFault ? { kind: 'interrupted', cause: interruption } : running.stop ? { kind: 'stopped', reason: running.stop } : { kind: 'error', error: describeError(err) };
      // the client sees __error__; the operator sees why, with the stack, under the run's id
      if (ending.kind === 'error') log.error('graph failed', { assistant_id: run.assistant_id, graph_id: run.graph_id, err: err instanceof Error ? err : { message: String(err) } });
    } finally {
      clearTimeout(timer);
      // a run's end must be recorded, or the run stays `running` and its thread busy for
      // ever: a failed write (a full disk, a lost database) is tried again until it succeeds;
      // so are giving its claim back (or the thread waits for the lease to run out) and
      // closing its log (or its readers wait for ever)
      const untilDone = (step: () => Promise<void>, what: string) =>
        retryUntilDone(step, {
          signal: this.stopping.signal,
          firstDelayMs: this.deps.retryMs ?? 100,
          maxDelayMs: 5_000,
          onFailure: (err, attempt, retryInMs) => log.error(`could not ${what}; trying again`, { attempt, retry_in_ms: retryInMs, err }),
        });
      const told = { error: false, again: false };
      const lost = ending.kind === 'stopped' && ending.reason === 'lost';
      if (!lost) await untilDone(() => this.finish(run, ending, told), 'record the end of the run').catch((err) => log.error('the end of the run was not recorded before the stop; the run is recovered on the next start', { err }));
      // listeners hear of the end before waiters are released, so what a client sees after
      // join/wait (metrics, a webhook already on its way) is consistent
      await this.announceEnd(run, ending, started).catch((err: Error) => log.error('run end listener failed', { error: err.message }));
      // a stateless run's own thread goes once the run has ended, and before its stream
      // ends: a client that saw `end` must not find the thread (on a database the delete
      // takes real time). Its event log (and so the wait/join answer) stays with the
      // broker. A shutdown keeps it: the run resumes.
      const resumes = (ending.kind === 'stopped' && (ending.reason === 'shutdown' || lost)) || told.again;
      if (isTemporary(run) && !resumes) {
        await this.discard(run.thread_id).catch((err: Error) => log.error('could not delete the temporary thread of a stateless run', { error: err.message }));
      }
      this.inFlight.delete(run.run_id);
      // a run that goes on elsewhere keeps its shared log open for the replica taking it, its
      // events so far written before its claim is given up (the next attempt numbers its
      // events after them)
      const shared = this.shared;
      if (shared && resumes) await this.deps.broker.detach(run.run_id);
      // the next run of the thread may start (on any replica) once the end is recorded
      if (shared && !lost) await untilDone(() => shared.release(run.run_id), 'release the run claim').catch((err) => log.error('the run claim was not released before the stop; it expires with its lease', { err }));
      // one started again here keeps its log open too, and its next attempt continues it
      if (!shared && told.again) this.queue.requeueFirst({ runId: run.run_id, threadId: run.thread_id });
      else if (!(shared && resumes)) await untilDone(() => this.deps.broker.end(run.run_id), 'close the log of the run');
      // a cancel that came while the new attempt was being recorded found the run still in
      // flight and only stopped what had already ended: it applies to the queued run now
      if (told.again && (running.stop === 'interrupt' || running.stop === 'rollback')) await this.cancel(run.thread_id, run.run_id, running.stop);
      log.info('run finished', { outcome: ending.kind === 'stopped' ? ending.reason : ending.kind, exec_ms: Date.now() - started });
    }
  }

  /**
   * Records the run's end; `told.error` keeps a retried attempt from sending the client an
   * error twice, `told.again` says the run was made pending to be started again.
   */
  private async finish(run: RunRecord, ending: Ending, told: { error: boolean; again: boolean }): Promise<void> {
    const { store, runs, threads, broker, checkpointer } = this.deps;
    const now = nowIso();
    const thread = await threads.get(run.thread_id);
    const current = await runs.get(run.run_id);
    if (!thread || !current) return; // the thread was deleted meanwhile
    // another replica took the run over (this one was thought gone) and started it again:
    // the run is theirs now, and this attempt records nothing
    if (current.status !== 'running' || current.attempt !== run.attempt) return;
    if (ending.kind === 'interrupted') {
      const next = this.retryInterrupted(current, ending.cause);
      told.again = next.status === 'pending';
      if (told.again) return void (await runs.put(run.run_id, next));
      await store.write([
        { collection: runs.name, id: run.run_id, value: next },
        { collection: threads.name, id: thread.thread_id, value: { ...thread, status: await this.threadStatusAfter(run, 'error'), updated_at: now } },
      ]);
      if (!told.error && next.error) broker.publish(run.run_id, 'error', next.error);
      told.error = true;
      if (next.error) broker.setResult(run.run_id, errorResult(next.error));
      return;
    }
    if (ending.kind === 'stopped' && ending.reason === 'shutdown') {
      // the server is stopping: the run starts again, from the same attempt, after the restart
      await runs.put(run.run_id, { ...current, status: 'pending', updated_at: now });
      return;
    }
    if (ending.kind === 'stopped' && ending.reason === 'rollback') {
      await checkpointer.deleteRun(run.thread_id, run.run_id);
      await store.write([
        { collection: runs.name, id: run.run_id, delete: true },
        { collection: threads.name, id: thread.thread_id, value: { ...thread, status: await this.threadStatusAfter(run, 'idle'), updated_at: now } },
      ]);
      return;
    }
    const ops: WriteOp[] = [];
    let threadStatus: ThreadStatus = 'idle';
    // an interrupted run's answer is whatever the thread holds when someone asks (see runs.result)
    let result: RunResult | undefined;
    let interrupts = thread.interrupts;
    let status: RunRecord['status'];
    let error: RunError | undefined;
    if (ending.kind === 'success') {
      status = 'success';
      ops.push(...ending.output.ops);
      interrupts = ending.output.interrupts;
      threadStatus = ending.output.next.length > 0 ? 'interrupted' : 'idle';
      const pending = Object.values(interrupts).flat();
      // as upstream: a run that stopped for input answers with its interrupts alone (the last
      // chunk it streamed); its values are the thread's state
      result = pending.length ? { __interrupt__: pending } : ending.output.values;
    } else if (ending.kind === 'error') {
      status = 'error';
      error = ending.error;
      threadStatus = 'error';
      result = errorResult(ending.error);
      if (!told.error) broker.publish(run.run_id, 'error', ending.error);
      told.error = true;
    } else if (ending.reason === 'timeout') {
      // as upstream: the run is `timeout`, its thread `error`; the client's stream says why
      status = 'timeout';
      error = { error: 'TimeoutError', message: new RunTimeout(this.deps.runTimeoutMs ?? 0).message };
      threadStatus = 'error';
      result = errorResult(error);
      if (!told.error) broker.publish(run.run_id, 'error', error);
      told.error = true;
    } else {
      status = 'interrupted';
    }
    ops.push({ collection: runs.name, id: run.run_id, value: { ...current, status, updated_at: now, ...(error ? { error } : {}) } });
    ops.push({ collection: threads.name, id: thread.thread_id, value: { ...thread, status: await this.threadStatusAfter(run, threadStatus), interrupts, updated_at: now } });
    await store.write(ops);
    if (result !== undefined) broker.setResult(run.run_id, result);
  }

  private async announceEnd(run: RunRecord, ending: Ending, started: number): Promise<void> {
    if (!this.deps.onRunEnded) return;
    const stored = await this.deps.runs.get(run.run_id);
    if (!stored || !FINAL_STATUSES.has(stored.status)) return;
    this.deps.onRunEnded({
      run: toApiRun(stored),
      values: ending.kind === 'success' ? ending.output.values : undefined,
      // a run the platform interrupted too often ends in `error` with the reason on its record
      error: ending.kind === 'error' ? ending.error : stored.error,
      startedAt: new Date(started),
      endedAt: new Date(),
      queuedMs: Math.max(0, started - Date.parse(run.created_at)),
    });
  }

  /** Upstream rule: error / interrupted win; otherwise busy while runs remain queued. */
  private async threadStatusAfter(run: RunRecord, status: ThreadStatus): Promise<ThreadStatus> {
    if (status === 'error' || status === 'interrupted') return status;
    return (await this.deps.runs.count({ where: { thread_id: run.thread_id, status: 'pending' } })) > 0 ? 'busy' : status;
  }
}

/**
 * The shared queue's side on this replica: claims runs while it has room (woken by NOTIFY
 * and by its own runs' ends, with a timer for runs waiting on `after_seconds`), renews its
 * claims every third of the lease, stops runs whose claim another replica took over or whose
 * cancel was asked elsewhere, and takes over the claims of replicas that are gone.
 */
class SharedQueue {
  private started = false;
  private stopped = false;
  private claiming = false;
  private again = false;
  private readonly active = new Set<Promise<void>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private dueTimer: NodeJS.Timeout | undefined;
  private readonly unlisten: (() => void)[] = [];

  constructor(
    private readonly lifecycle: RunLifecycle,
    private readonly claims: RunClaims,
    private readonly limit: number,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.started = true;
    this.unlisten.push(this.claims.onClaimable(() => this.wake()));
    this.unlisten.push(this.claims.onCancel((runId, action) => void this.lifecycle.stopLocal(runId, action as CancelAction)));
    const every = (ms: number, work: () => Promise<void>) => {
      const timer = setInterval(() => void work().catch((err) => this.log.error('run queue upkeep failed', { err })), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(100, Math.floor(this.leaseMs / 3)), () => this.renew());
    // a replica that is gone is noticed here (its liveness lock is free); and a lost NOTIFY
    // costs at most this long
    every(Math.min(Math.max(200, Math.floor(this.leaseMs / 10)), 3_000), async () => {
      await this.takeOver();
      this.wake();
    });
    this.wake();
  }

  /**
   * A run was queued here: this replica looks for work, and so does every other. The run is
   * stored already, so a message that cannot be sent fails nothing: the others find the run
   * at their next look (see start).
   */
  async queued(): Promise<void> {
    await this.claims.announce().catch((err) => this.log.warn('could not tell the other replicas of a queued run; they find it at their next look', { err }));
    this.wake();
  }

  /** Gives the run's claim back; rejects when the claim could not be given back (tried again by the caller). */
  async release(runId: string): Promise<void> {
    await this.claims.release(runId);
    this.wake();
  }

  async takeOver(): Promise<void> {
    const changed = await this.claims.takeOverAbandoned((run) => this.lifecycle.abandoned(run));
    for (const run of changed) if (run.status === 'error') await this.lifecycle.failThread(run.thread_id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.dueTimer);
    for (const stop of this.unlisten) stop();
    await Promise.allSettled([...this.active]);
  }

  private async renew(): Promise<void> {
    const held = this.lifecycle.executingIds();
    const { lost, cancels } = await this.claims.renew(held);
    for (const runId of lost) {
      this.log.warn('another replica took over this run (this one was thought gone); stopping it here', { run_id: runId });
      this.lifecycle.stopLocal(runId, 'lost');
    }
    for (const { runId, action } of cancels) this.lifecycle.stopLocal(runId, action as CancelAction);
  }

  private wake(): void {
    if (!this.started || this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    void this.claimWhileRoom()
      .catch((err) => this.log.error('could not claim runs; trying again shortly', { err }))
      .finally(() => (this.claiming = false));
  }

  private async claimWhileRoom(): Promise<void> {
    do {
      this.again = false;
      while (!this.stopped && this.lifecycle.executing() < this.limit) {
        let running: ReturnType<RunLifecycle['track']> | undefined;
        const run = await this.claims.claim((pending) => ({ ...pending, status: 'running', updated_at: nowIso() }));
        if (!run) break;
        running = this.lifecycle.track(run.run_id);
        const task: Promise<void> = this.lifecycle
          .executeClaimed(run, running)
          .catch((err) => this.log.error('run failed outside the graph', { run_id: run.run_id, err }))
          .finally(() => {
            this.active.delete(task);
            this.wake();
          });
        this.active.add(task);
      }
    } while (this.again && !this.stopped);
    if (this.stopped) return;
    const due = await this.claims.nextDue();
    clearTimeout(this.dueTimer);
    if (due !== null) {
      this.dueTimer = setTimeout(() => this.wake(), Math.max(0, due - Date.now()) + 5);
      this.dueTimer.unref();
    }
  }
}
