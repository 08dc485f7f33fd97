// The one run engine: it claims runs from a RunClaims port while it has room, executes them,
// and records each end as the run state machine (runStateMachine.ts) says, whatever backend
// holds the queue — a server alone on its store (adapters/embedded/runClaims.ts) or replicas
// sharing PostgreSQL (adapters/postgres/pgRunClaims.ts). It is woken by the port (a run queued or
// released anywhere), by its own runs' ends, and by a timer for runs waiting on
// `after_seconds`; it renews its claims every quarter of the lease (every 250 ms while that
// fails), stops runs whose claim was taken over or whose cancel was asked elsewhere, stops
// its runs itself before a claim it could not renew may be taken over (runLease.ts), and
// recovers the claims of holders that are gone (a replica that died; on the embedded store,
// the previous process). Every write of a run's end goes through its claim
// (RunClaims.recordEnd): a run whose claim was taken over ends here with nothing written for
// it, its claim and its thread left to the new attempt.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../ports/logger.ts';
import type { Collection, Store, WriteOp } from '../ports/store.ts';
import type { Claim, RunClaims } from '../ports/runClaims.ts';
import type { RunEventLog } from '../ports/runEventLog.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { nowIso } from '../clock.ts';
import { copyWith } from '../copyWith.ts';
import { retryUntilDone } from '../retry.ts';
import type { StoreCheckpointer } from './checkpointer.ts';
import type { PlainStateStore } from './plainState.ts';
import { describeError, errorResult, ownerOf, toApiRun, type RunError, type RunRecord, type ThreadRecord } from './records.ts';
import type { Run, RunResult } from '../../../generated/agent-server/types.gen.ts';
import type { RunExecutor, RunOutput } from './runContext.ts';
import { traceOf } from './tracing/failedRunTrace.ts';
import type { TraceSpan } from './tracing/runSpans.ts';
import { platformCause, PlatformInterruption, RunTimeout } from './runInterruptions.ts';
import { isProtocolRun } from './protocol/plainRuns.ts';
import { PROTOCOL_LOG_EVENT } from './protocol/events.ts';
import { terminalLifecycle } from './protocol/lifecycle.ts';
import { leaseTimes, type LeaseTimes } from './runLease.ts';
import {
  endOf,
  FINAL_RUN_STATUSES,
  settleThread,
  transition,
  type CancelAction,
  type Execution,
  type RunEvent,
  type StopReason,
  type Transition,
} from './runStateMachine.ts';

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

export interface EngineDeps {
  /** Called once per run that reached a final status (not for rollbacks or new attempts). */
  onRunEnded?: (ended: RunEnded) => void;
  store: Store;
  runs: Collection<RunRecord>;
  threads: Collection<ThreadRecord>;
  broker: RunEventLog;
  claims: RunClaims;
  /** AGENTPLANE_RUN_LEASE_S: the longest a claim outlives its replica's loss of the database (see runLease.ts). */
  leaseMs: number;
  plain: PlainStateStore;
  checkpointer: StoreCheckpointer;
  execute: RunExecutor;
  /** Told of each pending run taken out of the queue unrun (cancelled, deleted with its thread). */
  onWithdrawn?: (runId: string) => void;
  log: Logger;
  maxConcurrentRuns: number;
  /** First wait before recording a run's end is tried again (doubling, up to 5 s). */
  retryMs?: number;
  /** A run still executing after this long is stopped and ends in `timeout` (0 or absent: no limit). */
  runTimeoutMs?: number;
}

interface InFlight {
  controller: AbortController;
  stop: StopReason | null;
  /** Absent while it is being taken: not yet visible to renewals, so not to be renewed. */
  claim?: Claim;
  /** performance.now() when the claim, or the last renewal that kept it, was sent. */
  renewedAt: number;
  /** A protocol run's numbering (protocol/events.ts): its thread's sequence number before it, and its events so far. */
  protocol?: { base: number; published: number };
}

/** How recording a run's end went (it is tried again until it succeeds): the error is told once. */
interface Told {
  error: boolean;
  /** The record as written: pending again for a new attempt; null once deleted. */
  recorded?: RunRecord | null;
  /** The claim was taken over: nothing was written, and nothing more is for this attempt. */
  stale?: boolean;
  /** The claim was given up with the end (RunClaims.recordEnd's `release`). */
  released?: boolean;
}

/** What a claim makes of a pending run (the state machine's `claim`). */
const RUN_STARTED = transition({ status: 'pending', attempt: 1 }, { type: 'claim' })!.run!.status!;

/** How long a cancel heard for a run not executing here is kept for its claim's answer. */
const CANCEL_AHEAD_MS = 5_000;

/** A stateless run whose thread is deleted when it ends (`on_completion: delete`). */
const isTemporary = (run: RunRecord) => run.kwargs.temporary === true;

export class RunEngine {
  /** Runs this server executes, by run id; registered as their claim's answer arrives. */
  private readonly inFlight = new Map<string, InFlight>();
  /** Aborted on stop: an end that could not be recorded by then is recovered on the next start. */
  private readonly stopping = new AbortController();
  private started = false;
  private claiming = false;
  private again = false;
  private readonly active = new Set<Promise<void>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private dueTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  /** Since when renewals fail (performance.now()); null while they succeed. */
  private renewFailingSince: number | null = null;
  private readonly unlisten: (() => void)[] = [];
  /** Cancels heard for runs not executing here, by run id, kept CANCEL_AHEAD_MS (see cancelAhead). */
  private readonly cancelsAhead = new Map<string, { action: CancelAction; at: number }>();

  constructor(private readonly deps: EngineDeps) {}

  /** How many runs are executing here now (metrics). */
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
   * A run was stored as pending: this server looks for work, and so does every other. The run
   * is stored already, so a message that cannot be sent fails nothing: the others find the run
   * at their next look (see start). A run behind others on its thread (`behindOthers`, see
   * RunClaims.queued) is looked for when they end.
   */
  async queued(run: RunRecord, behindOthers = false): Promise<void> {
    await this.deps.claims
      .queued(run, behindOthers)
      .catch((err) => this.deps.log.warn('could not tell the other replicas of a queued run; they find it at their next look', { err }));
    if (!behindOthers) this.wake();
  }

  /** A run was stored, its claimers told (RunClaims.enqueue): this server looks for work too when `woke`. */
  queuedTogether(woke: boolean): void {
    if (woke) this.wake();
  }

  /** A pending run ends at once; a running one is asked to stop, and its end is recorded when it has. */
  async cancel(threadId: string, runId: string, action: CancelAction): Promise<Outcome<RunRecord, 'not_found'>> {
    const { runs, threads, store, broker } = this.deps;
    const run = await runs.get(runId);
    if (!run || run.thread_id !== threadId) return fail('not_found', 'Run not found');
    // upstream accepts a cancel that comes too late and changes nothing
    if (FINAL_RUN_STATUSES.has(run.status)) return ok(run);
    const step = transition({ status: 'pending', attempt: run.attempt }, { type: 'cancel', action })!;
    const cancelled: RunRecord = copyWith(run, { status: 'interrupted' as const, updated_at: nowIso() });
    // the record is the queue entry: taken out while still pending, atomically against a claim
    let withdrawn = false;
    if (run.status === 'pending') await runs.update(runId, (current) => (current.status === 'pending' ? ((withdrawn = true), cancelled) : undefined));
    if (withdrawn) {
      this.deps.onWithdrawn?.(runId);
      const thread = await threads.get(threadId);
      const idle = (await this.inflight(threadId)).filter((id) => id !== runId).length === 0;
      await store.write([
        step.run ? { collection: runs.name, id: runId, value: cancelled } : { collection: runs.name, id: runId, delete: true },
        ...(thread && idle && step.thread
          ? [{ collection: threads.name, id: threadId, value: copyWith(thread, { status: step.thread, updated_at: cancelled.updated_at }) }]
          : []),
      ]);
      await broker.end(runId);
      if (isTemporary(run)) await this.discard(threadId);
      return ok(cancelled);
    }
    if (!this.stopLocal(runId, action)) await this.deps.claims.requestCancel(runId, action);
    return ok(run);
  }

  /** Deletes a thread with its runs and its state (nothing of it may be in flight). */
  async discard(threadId: string): Promise<void> {
    const { runs, threads, store, plain, checkpointer } = this.deps;
    const records = await runs.list({ where: { thread_id: threadId } });
    await store.write([
      ...records.map((r) => ({ collection: runs.name, id: r.run_id, delete: true as const })),
      ...(await plain.deleteOps(threadId)),
      { collection: threads.name, id: threadId, delete: true },
    ]);
    for (const run of records) if (run.status === 'pending') this.deps.onWithdrawn?.(run.run_id);
    await checkpointer.deleteThread(threadId);
  }

  /**
   * After a restart, and every little while: the runs whose holder is gone (a crash, a replica
   * that died) are started again as a new attempt, or end in `error` after MAX_ATTEMPTS (a run
   * that kills its server cannot do so forever). Either way it is logged, never dropped.
   */
  async recover(): Promise<void> {
    const { abandoned, queued } = await this.deps.claims.recover((run) => this.interrupted(run, null));
    for (const run of abandoned) if (run.status === 'error') await this.failThread(run.thread_id);
    // a queue in process memory was loaded again: so are the logs its readers join
    for (const run of queued) await this.deps.broker.open(run.run_id, ownerOf(run), run.thread_id);
    if (queued.length) this.deps.log.info('runs queued again after restart', { count: queued.length });
  }

  start(): void {
    this.started = true;
    const { claims, leaseMs, log } = this.deps;
    this.unlisten.push(claims.onClaimable(() => this.wake()));
    this.unlisten.push(
      claims.onCancel((runId, action) => {
        if (!this.stopLocal(runId, action as CancelAction)) this.cancelAhead(runId, action as CancelAction);
      }),
    );
    const every = (ms: number, work: () => Promise<void>) => {
      const timer = setInterval(() => void work().catch((err) => log.error('run queue upkeep failed', { err })), ms);
      timer.unref();
      this.timers.push(timer);
    };
    const lease = leaseTimes(leaseMs);
    this.renewEvery(lease);
    // by this server's clock alone, whatever a renewal in flight is waiting for
    if (claims.leased) every(lease.retryEveryMs, async () => this.stopUnrenewed(lease.stopAfterMs));
    // a holder that is gone is noticed here; and a lost wake-up costs at most this long
    every(Math.min(Math.max(200, Math.floor(leaseMs / 10)), 3_000), async () => {
      await this.recover();
      this.wake();
    });
    this.wake();
  }

  /** Stops taking runs; runs in flight are interrupted by the platform: they start again, as a new attempt, after the restart. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const runId of this.inFlight.keys()) this.stopLocal(runId, 'shutdown');
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.dueTimer);
    clearTimeout(this.renewTimer);
    for (const stop of this.unlisten) stop();
    // a graph that ignores its abort signal must not hold the shutdown forever; its run
    // then stays `running` in the store and is treated like a crash on the next start. The
    // timer keeps the process up while it waits (unref'd, the stop's promise could be left
    // never settled once nothing else was left), and goes as soon as the runs have settled.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
    clearTimeout(timer);
  }

  /** Asks a run executing on this server to stop; false when it is not executing here (or no longer holds its claim). */
  private stopLocal(runId: string, reason: StopReason): boolean {
    const running = this.inFlight.get(runId);
    if (!running || running.stop === 'lost') return false;
    if (!running.stop) running.stop = reason;
    running.controller.abort();
    return true;
  }

  /** A thread whose run was abandoned for good is `error`, unless more runs wait on it. */
  private async failThread(threadId: string): Promise<void> {
    if ((await this.inflight(threadId)).length > 0) return;
    await this.deps.threads.update(threadId, (thread) => ({ ...thread, status: 'error', updated_at: nowIso() }));
  }

  /**
   * A run the platform cut short — its server died (`cause` null), stopped, or its store or
   * worker failed under it — never its graph: a new attempt, or `error` after MAX_ATTEMPTS.
   */
  private interrupted(run: RunRecord, cause: RunError | null): RunRecord {
    const step = transition(run, { type: 'platformInterrupted', cause })!;
    const next = applied(run, step)!;
    const fields = { run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt, ...(cause ? { cause: cause.message } : {}) };
    if (next.status === 'error')
      this.deps.log.warn(cause ? 'run abandoned after repeated interruptions by the platform' : 'run abandoned after repeated server crashes', fields);
    else
      this.deps.log.warn(cause ? 'the platform interrupted the run; starting it again' : 'run was in progress when the server stopped; starting it again', {
        ...fields,
        attempt: next.attempt,
      });
    return next;
  }

  /**
   * Renews every `renewEveryMs` from the start of the last renewal (a slow answer does not
   * stretch the period); while renewals fail, every `retryEveryMs`, so the claims are kept the
   * moment the database is back.
   */
  private renewEvery(lease: LeaseTimes): void {
    const next = (ms: number) => {
      if (this.stopping.signal.aborted) return;
      this.renewTimer = setTimeout(() => void renewal(), Math.max(0, ms));
      this.renewTimer.unref();
    };
    const renewal = async () => {
      const began = performance.now();
      try {
        await this.renew();
        if (this.renewFailingSince !== null)
          this.deps.log.info('run claims renewed again', { failing_ms: Math.round(performance.now() - this.renewFailingSince) });
        this.renewFailingSince = null;
        next(began + lease.renewEveryMs - performance.now());
      } catch (err) {
        if (this.renewFailingSince === null) {
          this.renewFailingSince = began;
          this.deps.log.warn('could not renew the run claims; trying again every few hundred ms', { retry_ms: lease.retryEveryMs, err });
        }
        next(began + lease.retryEveryMs - performance.now());
      }
    };
    next(lease.renewEveryMs);
  }

  private async renew(): Promise<void> {
    // a claim still being taken is not the database's yet: renewing it would find it lost
    const held = [...this.inFlight.values()].filter((running) => running.claim && running.stop !== 'lost');
    const sentAt = performance.now();
    const { lost, cancels } = await this.deps.claims.renew(held.map((running) => running.claim!));
    const gone = new Set(lost);
    for (const running of held) if (!gone.has(running.claim!.run.run_id)) running.renewedAt = Math.max(running.renewedAt, sentAt);
    for (const runId of lost) {
      this.deps.log.warn('another replica took over this run (this one was thought gone); stopping it here', { run_id: runId });
      this.stopLocal(runId, 'lost');
    }
    for (const { runId, action } of cancels) this.stopLocal(runId, action as CancelAction);
  }

  /** Stops the runs whose claim could not be renewed for `stopAfterMs`: before another replica may take them over. */
  private stopUnrenewed(stopAfterMs: number): void {
    const now = performance.now();
    for (const [runId, running] of this.inFlight) {
      if (!running.claim || running.stop || now - running.renewedAt < stopAfterMs) continue;
      this.deps.log.warn("could not renew this run's claim in time; stopping it here before another replica may take it over", {
        run_id: runId,
        attempt: running.claim.run.attempt,
        unrenewed_ms: Math.round(now - running.renewedAt),
      });
      this.stopLocal(runId, 'unrenewed');
    }
  }

  private wake(): void {
    if (!this.started || this.stopping.signal.aborted) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    void this.claimWhileRoom()
      .catch((err) => this.deps.log.error('could not claim runs; trying again shortly', { err }))
      .finally(() => (this.claiming = false));
  }

  private async claimWhileRoom(): Promise<void> {
    const stopped = this.stopping.signal;
    let due: number | null | undefined;
    do {
      this.again = false;
      const room = this.deps.maxConcurrentRuns - this.inFlight.size;
      if (stopped.aborted || room <= 0) break;
      // a run whose earlier attempt is still stopping here waits for it (one attempt per run on a server)
      const stillHere = new Set(this.inFlight.keys());
      // the lease counts from the claim's statement, not from its answer
      const sentAt = performance.now();
      const taken = await this.deps.claims.claim({ status: RUN_STARTED, updated_at: nowIso() }, room, stillHere);
      due = taken.due;
      for (const claim of taken.claims) this.begin(claim, sentAt);
      // fewer than there was room for: nothing more is claimable now, until the next wake-up
    } while (this.again && !stopped.aborted);
    if (stopped.aborted || due === undefined) return;
    clearTimeout(this.dueTimer);
    if (due !== null) {
      this.dueTimer = setTimeout(() => this.wake(), Math.max(0, due - Date.now()) + 5);
      this.dueTimer.unref();
    }
  }

  /** A claimed run starts executing here. */
  private begin(claim: Claim, renewedAt: number): void {
    const { run } = claim;
    const running: InFlight = { controller: new AbortController(), stop: null, renewedAt, claim };
    this.inFlight.set(run.run_id, running);
    // a cancel heard before the claim's answer came back (see onCancel) applies now
    const asked = this.cancelsAhead.get(run.run_id);
    if (asked) {
      this.cancelsAhead.delete(run.run_id);
      this.stopLocal(run.run_id, asked.action);
    }
    const task: Promise<void> = this.execute(run, running)
      .catch((err) => this.deps.log.error('run failed outside the graph', { run_id: run.run_id, err }))
      .finally(() => {
        this.active.delete(task);
        this.wake();
      });
    this.active.add(task);
  }

  /**
   * A cancel for a run not executing here (yet): a run is claimed in one statement, so a
   * cancel sent by another replica once the claim committed may be heard before the claim's
   * answer arrives. Kept a few seconds for `begin`; the claim's renewal also carries it
   * (RunClaims.renew), so a message lost here still stops the run within a renewal.
   */
  private cancelAhead(runId: string, action: CancelAction): void {
    const now = performance.now();
    for (const [id, asked] of this.cancelsAhead) if (now - asked.at > CANCEL_AHEAD_MS) this.cancelsAhead.delete(id);
    this.cancelsAhead.set(runId, { action, at: now });
  }

  /** execute → record the end → give the claim back. Whatever the graph does, the end is recorded and the log closed. */
  private async execute(run: RunRecord, running: InFlight): Promise<void> {
    const started = Date.now();
    const log = this.deps.log.child({ run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt });
    const { broker } = this.deps;
    // a protocol run's events are numbered after the thread's protocol events so far
    if (isProtocolRun(run)) running.protocol = { base: (await this.deps.threads.get(run.thread_id))?.protocol_seq ?? 0, published: 0 };
    const publish = (event: string, data: unknown) => {
      if (running.protocol) running.protocol.published += 1;
      broker.publish(run.run_id, event, data);
    };
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
    let execution: Execution = {
      returned: false,
      error: { error: 'InternalError', message: 'The run ended unexpectedly.' },
      platformCause: null,
      workerDied: false,
    };
    let output: RunOutput | undefined;
    // a failed run keeps the spans it made up to its error
    let failedTrace: TraceSpan[] | undefined;
    try {
      await broker.begin(
        run.run_id,
        (err) => {
          log.error("the run's events could not be stored; starting it again", { err });
          this.stopLocal(run.run_id, 'eventsLost');
        },
        run.attempt,
      );
      publish('metadata', {
        run_id: run.run_id,
        attempt: run.attempt,
        ...(running.protocol ? { seq_base: running.protocol.base, timestamp: Date.now() } : {}),
      });
      output = await this.deps.execute(run, running.controller.signal, publish, startClock);
      execution = { returned: true, waitsForInput: output.next.length > 0 };
    } catch (err) {
      execution = { returned: false, error: describeError(err), platformCause: platformCause(err), workerDied: err instanceof PlatformInterruption };
      failedTrace = traceOf(err);
      // the client sees __error__; the operator sees why, with the stack, under the run's id
      if (endOf(running.stop, execution, limitMs).type === 'fail')
        log.error('graph failed', { assistant_id: run.assistant_id, graph_id: run.graph_id, err: err instanceof Error ? err : { message: String(err) } });
    } finally {
      clearTimeout(timer);
    }
    await this.conclude(run, running, endOf(running.stop, execution, limitMs), output, output?.trace ?? failedTrace, started, log);
  }

  /**
   * A run's end must be recorded, or the run stays `running` and its thread busy for ever: a
   * failed write (a full disk, a lost database) is tried again until it succeeds; so are giving
   * its claim back (or the thread waits for the lease to run out) and closing its log (or its
   * readers wait for ever).
   */
  private async conclude(
    run: RunRecord,
    running: InFlight,
    event: RunEvent,
    output: RunOutput | undefined,
    trace: TraceSpan[] | undefined,
    started: number,
    log: Logger,
  ): Promise<void> {
    const untilDone = (step: () => Promise<void>, what: string) =>
      retryUntilDone(step, {
        signal: this.stopping.signal,
        firstDelayMs: this.deps.retryMs ?? 100,
        maxDelayMs: 5_000,
        onFailure: (err, attempt, retryInMs) => log.error(`could not ${what}; trying again`, { attempt, retry_in_ms: retryInMs, err }),
      });
    const told: Told = { error: false };
    const claim = running.claim!;
    if (!(event.type === 'stopped' && event.reason === 'lost'))
      await untilDone(() => this.record(claim, event, output, trace, told, running.protocol), 'record the end of the run').catch((err) =>
        log.error('the end of the run was not recorded before the stop; the run is recovered on the next start', { err }),
      );
    // another replica has the run now (this one was thought gone): its claim, its thread and its log are the new attempt's
    const lost = (event.type === 'stopped' && event.reason === 'lost') || told.stale === true;
    if (told.stale) log.warn('another replica took over this run; nothing of this attempt is recorded', { outcome: outcomeOf(event) });
    // listeners hear of the end before waiters are released, so what a client sees after
    // join/wait (metrics, a webhook already on its way) is consistent
    await this.announceEnd(told.recorded, output, event, started).catch((err: Error) => log.error('run end listener failed', { error: err.message }));
    const again = told.recorded?.status === 'pending';
    // the run goes on (a new attempt, here or elsewhere; or recovered on the next start)
    const resumes = lost || again || (event.type === 'platformInterrupted' && told.recorded === undefined);
    // a stateless run's own thread goes once the run has ended, and before its stream ends: a
    // client that saw `end` must not find the thread. Its log (the wait/join answer) stays.
    if (isTemporary(run) && !resumes)
      await this.discard(run.thread_id).catch((err: Error) => log.error('could not delete the temporary thread of a stateless run', { error: err.message }));
    if (this.inFlight.get(run.run_id) === running) this.inFlight.delete(run.run_id);
    // its events so far are written before its claim is given up (the next attempt numbers its events after them)
    if (resumes) await this.deps.broker.detach(run.run_id);
    // the next run of the thread may start (on any server) once the end is recorded (a final
    // end has given its claim up already, in the same write)
    if (!lost && !told.released)
      await untilDone(() => this.deps.claims.release(claim, told.recorded ?? { ...run, status: 'running' }), 'release the run claim').catch((err) =>
        log.error('the run claim was not released before the stop; it expires with its lease', { err }),
      );
    if (!resumes) await untilDone(() => this.deps.broker.end(run.run_id), 'close the log of the run');
    // a cancel that came while the new attempt was being recorded found the run still in
    // flight and only stopped what had already ended: it applies to the queued run now
    if (again && (running.stop === 'interrupt' || running.stop === 'rollback')) await this.cancel(run.thread_id, run.run_id, running.stop);
    log.info('run finished', { outcome: outcomeOf(event), exec_ms: Date.now() - started });
  }

  /**
   * Records the run's end as the state machine says, through its claim: nothing when the claim
   * was taken over (`told.stale`), or when the thread was deleted meanwhile.
   */
  private async record(
    claim: Claim,
    event: RunEvent,
    output: RunOutput | undefined,
    trace: TraceSpan[] | undefined,
    told: Told,
    protocol?: { base: number; published: number },
  ): Promise<void> {
    const { runs, threads, broker, checkpointer, claims } = this.deps;
    const { run } = claim;
    const seen = claims.endState ? await claims.endState(run) : { thread: await threads.get(run.thread_id), run: await runs.get(run.run_id) };
    const { thread, run: current } = seen;
    if (!thread || !current) return; // the thread was deleted meanwhile
    // another replica took the run over (this one was thought gone) and started it again:
    // the run is theirs now, and this attempt records nothing (recordEnd checks it again, in the write)
    if (current.status !== 'running' || current.attempt !== run.attempt) {
      told.stale = true;
      return;
    }
    const step = transition(current, event)!;
    const next = event.type === 'platformInterrupted' ? this.interrupted(current, event.cause) : applied(current, step);
    if (next?.status === 'pending') {
      if (await claims.recordEnd(claim, [{ collection: runs.name, id: run.run_id, value: next }])) told.recorded = next;
      else told.stale = true;
      return;
    }
    const error = step.effects.find((e) => e.type === 'publishError')?.error;
    // a protocol run ends with its root lifecycle event (its error in it), once: numbered here,
    // published only once the end is recorded (a stale claim publishes nothing)
    const endsProtocol = protocol !== undefined && !told.error;
    const seqEnd = protocol && protocol.base + protocol.published + (endsProtocol ? 1 : 0);
    const ops: WriteOp[] = event.type === 'succeed' && output ? [...output.ops] : [];
    if (step.effects.some((e) => e.type === 'deleteCheckpoints')) ops.push(...(await checkpointer.deleteRunOps(run.thread_id, run.run_id)));
    const interrupts = event.type === 'succeed' && output ? output.interrupts : thread.interrupts;
    // the trace stays with the run's record: deleted with the run and its thread
    const withTrace = next && trace ? copyWith(next, { trace }) : next;
    const traced = withTrace && protocol ? copyWith(withTrace, { protocol_seq: { base: protocol.base, end: seqEnd! } }) : withTrace;
    ops.push(traced ? { collection: runs.name, id: run.run_id, value: traced } : { collection: runs.name, id: run.run_id, delete: true });
    if (step.thread) {
      const pending = 'pendingOnThread' in seen ? seen.pendingOnThread : await runs.count({ where: { thread_id: run.thread_id, status: 'pending' } });
      const othersWaiting = pending > 0;
      ops.push({
        collection: threads.name,
        id: thread.thread_id,
        value: copyWith(thread, {
          status: settleThread(step.thread, othersWaiting),
          interrupts,
          updated_at: next?.updated_at ?? nowIso(),
          ...(seqEnd !== undefined ? { protocol_seq: seqEnd } : {}),
        }),
      });
    }
    // a final end gives the claim up with it (a temporary thread's goes after its deletion, below)
    const release = next && FINAL_RUN_STATUSES.has(next.status) && !isTemporary(run) ? next : undefined;
    if (!(await claims.recordEnd(claim, ops, release))) {
      told.stale = true;
      return;
    }
    told.recorded = next;
    told.released = release !== undefined;
    if (endsProtocol) {
      broker.publish(run.run_id, PROTOCOL_LOG_EVENT, terminalLifecycle(run, event, output, error));
      protocol.published += 1;
    } else if (error && !told.error) broker.publish(run.run_id, 'error', error);
    told.error ||= error !== undefined || protocol !== undefined;
    const result = resultOf(step, output, error);
    if (result !== undefined) broker.setResult(run.run_id, result);
  }

  /** `recorded`: the run as this server recorded its end (none when it did not: the thread went, or another replica took the run over). */
  private async announceEnd(recorded: RunRecord | null | undefined, output: RunOutput | undefined, event: RunEvent, started: number): Promise<void> {
    // what was just written, not read back: whoever recorded the end announces it, once
    if (!this.deps.onRunEnded || !recorded || !FINAL_RUN_STATUSES.has(recorded.status)) return;
    this.deps.onRunEnded({
      run: toApiRun(recorded),
      values: event.type === 'succeed' ? output?.values : undefined,
      // a run the platform interrupted too often ends in `error` with the reason on its record
      error: event.type === 'fail' ? event.error : recorded.error,
      startedAt: new Date(started),
      endedAt: new Date(),
      queuedMs: Math.max(0, started - Date.parse(recorded.created_at)),
    });
  }
}

/** The record after a transition; null when it is deleted. */
function applied(run: RunRecord, step: Transition): RunRecord | null {
  if (!step.run) return null;
  const { error, ...state } = step.run;
  return copyWith(copyWith(run, state), error ? { updated_at: nowIso(), error } : { updated_at: nowIso() });
}

/** The join/wait answer; none for an interrupted run (its answer is whatever the thread holds when asked). */
function resultOf(step: Transition, output: RunOutput | undefined, error: RunError | undefined): RunResult | undefined {
  const from = step.effects.find((e) => e.type === 'setResult')?.from;
  if (from === 'error' && error) return errorResult(error);
  if (from !== 'output' || !output) return undefined;
  // as upstream: a run that stopped for input answers with its interrupts alone (the last
  // chunk it streamed); its values are the thread's state. A stop at `interrupt_before` or
  // `interrupt_after` is one too: its tasks wait with no interrupt (LangGraph streams `[]`)
  const stopped = Object.keys(output.interrupts).length > 0;
  return stopped ? { __interrupt__: Object.values(output.interrupts).flat() } : output.values;
}

function outcomeOf(event: RunEvent): string {
  if (event.type === 'succeed') return 'success';
  if (event.type === 'fail') return 'error';
  if (event.type === 'timedOut') return 'timeout';
  if (event.type === 'stopped') return event.reason;
  return 'interrupted';
}
