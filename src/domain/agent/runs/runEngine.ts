// The one run engine: it claims runs from a RunClaims port while it has room, executes them,
// and records each end as the run state machine (runStateMachine.ts) says, whatever backend
// holds the queue — a server alone on its store (adapters/run-storage/inProcessRunClaims.ts) or replicas
// sharing PostgreSQL (adapters/run-storage/pgRunClaims.ts). It is woken by the port (a run queued or
// released anywhere), by its own runs' ends, and by a timer for runs waiting on
// `after_seconds`; it renews its claims every quarter of the lease (every 250 ms while that
// fails), stops runs whose claim was taken over or whose cancel was asked elsewhere, stops
// its runs itself before a claim it could not renew may be taken over (runLease.ts), and
// recovers the claims of holders that are gone (a replica that died; on the embedded store,
// the previous process). Every write of a run's end goes through its claim
// (RunClaims.recordEnd): a run whose claim was taken over ends here with nothing written for
// it, its claim and its thread left to the new attempt.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../ports/logger.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { Claim, RunClaims } from '../../ports/runClaims.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { fail, ok, type Outcome } from '../../outcome.ts';
import { nowIso } from '../../clock.ts';
import { copyWith } from '../../copyWith.ts';
import { retryUntilDone } from '../../retry.ts';
import type { StoreCheckpointer } from '../checkpoints/checkpointer.ts';
import type { PlainStateStore } from '../checkpoints/plainState.ts';
import { ownerOf, type RunError, type RunRecord } from '../records.ts';
import type { RunExecutor, RunOutput } from '../graphs/runContext.ts';
import type { TraceSpan } from '../tracing/runSpans.ts';
import { executeGraph } from './runExecution.ts';
import { ownTurn, RUN_END, RUN_START } from '../../../shared/turns.ts';
import { leaseTimes } from './runLease.ts';
import { ClaimRenewal } from './runClaimRenewal.ts';
import { announceRunEnd, applied, isTemporary, outcomeOf, recordRunEnd, type RunEndDeps, type RunEndOutbox, type RunEnded, type Told } from './runEndRecord.ts';
import type { InFlight } from './runInFlight.ts';
import { FINAL_RUN_STATUSES, settleThread, transition, type CancelAction, type RunEvent, type StopReason } from './runStateMachine.ts';

export type { RunEnded } from './runEndRecord.ts';

export interface EngineDeps {
  /** Called once per run that reached a final status (not for rollbacks or new attempts). */
  onRunEnded?: (ended: RunEnded) => void;
  /** What is written with a run's final end and started once it is (its webhook's delivery). */
  outbox?: RunEndOutbox;
  /** The runs' and threads' records. */
  records: RunStore;
  eventLog: RunEventLog;
  claims: RunClaims;
  /** AGENTPLANE_RUN_LEASE_S: the longest a claim outlives its replica's loss of the database (see runLease.ts). */
  leaseMs: number;
  plain: PlainStateStore;
  checkpointer: StoreCheckpointer;
  /** The thread's values as its checkpoints hold them now, stored on its record as a run ends (ThreadStateReader.currentValues). */
  threadValues: RunEndDeps['threadValues'];
  execute: RunExecutor;
  /** Told of each pending run taken out of the queue unrun (cancelled, deleted with its thread). */
  onWithdrawn?: (runId: string) => void;
  /** Told of each thread deleted (by a client, its TTL, or as a stateless run's own): the worker pool forgets where it ran. */
  onThreadDiscarded?: (threadId: string) => void;
  log: Logger;
  maxConcurrentRuns: number;
  /** The most of this server's run slots one owner's runs hold at once (runFairShare.ts); no bound when absent. */
  maxRunSlotsPerTenant?: number;
  /** First wait before recording a run's end is tried again (doubling, up to 5 s). */
  retryMs?: number;
  /** A run still executing after this long is stopped and ends in `timeout` (0 or absent: no limit). */
  runTimeoutMs?: number;
}

/** What a claim makes of a pending run (the state machine's `claim`). */
const RUN_STARTED = transition({ status: 'pending', attempt: 1 }, { type: 'claim' })!.run!.status!;

/** How long a cancel heard for a run not executing here is kept for its claim's answer. */
const CANCEL_AHEAD_MS = 5_000;
/** The longest delay setTimeout keeps (2^31 - 1 ms, ~24.8 days); a longer one fires at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

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
  private readonly renewal: ClaimRenewal;
  private readonly endDeps: RunEndDeps;
  private readonly unlisten: (() => void)[] = [];
  /** Cancels heard for runs not executing here, by run id, kept CANCEL_AHEAD_MS (see cancelAhead). */
  private readonly cancelsAhead = new Map<string, { action: CancelAction; at: number }>();

  constructor(private readonly deps: EngineDeps) {
    const stopLocal = (runId: string, reason: StopReason) => this.stopLocal(runId, reason);
    this.renewal = new ClaimRenewal({ claims: deps.claims, log: deps.log, inFlight: this.inFlight, stopLocal });
    const { records, eventLog, checkpointer, claims, threadValues, outbox } = deps;
    this.endDeps = { records, eventLog, checkpointer, claims, threadValues, outbox, interrupted: (run, cause) => this.interrupted(run, cause) };
  }

  /** How many runs are executing here now (metrics). */
  executing(): number {
    return this.inFlight.size;
  }

  /** Run ids queued or running on the thread, the running one first, then the pending ones in receipt order. */
  async inflight(threadId: string): Promise<string[]> {
    // pending first: a run that turns running between the two reads is in both (kept once);
    // read the other way round it could be in neither
    const pending = await this.deps.records.runsOfThread(threadId, 'pending');
    const running = await this.deps.records.runsOfThread(threadId, 'running');
    return [...new Set([...running, ...pending].map((r) => r.run_id))];
  }

  /**
   * A run was stored and its claimers told (RunClaims.enqueue): this server looks for work too
   * when `woke` (a run behind others on its thread is looked for when they end).
   */
  enqueued(woke: boolean): void {
    if (woke) this.wake();
  }

  /** A pending run ends at once; a running one is asked to stop, and its end is recorded when it has. */
  async cancel(threadId: string, runId: string, action: CancelAction): Promise<Outcome<RunRecord, 'not_found'>> {
    const { records, eventLog } = this.deps;
    const run = await records.get(runId);
    if (!run || run.thread_id !== threadId) return fail('not_found', 'Run not found');
    // upstream accepts a cancel that comes too late and changes nothing
    if (FINAL_RUN_STATUSES.has(run.status)) return ok(run);
    const step = transition({ status: 'pending', attempt: run.attempt }, { type: 'cancel', action })!;
    const cancelled: RunRecord = copyWith(run, { status: 'interrupted' as const, updated_at: nowIso() });
    // the record is the queue entry: taken out while still pending, atomically against a claim
    if (run.status === 'pending' && (await records.withdraw(runId, cancelled))) {
      this.deps.onWithdrawn?.(runId);
      const idle = (await this.inflight(threadId)).filter((id) => id !== runId).length === 0;
      // the thread's status set where it stands when the write applies, `busy` if a run was
      // queued on it meanwhile (this holds no thread lock: a patch or a creation may come first)
      const settled = step.thread && { settled: step.thread, whileWaiting: settleThread(step.thread, true) };
      await records.write([
        step.run ? records.putRun(cancelled) : records.deleteRun(runId),
        ...(idle && settled ? [records.settleThread(threadId, { updated_at: cancelled.updated_at }, settled)] : []),
      ]);
      await eventLog.end(runId);
      if (isTemporary(run)) await this.discard(threadId);
      return ok(cancelled);
    }
    if (!this.stopLocal(runId, action)) await this.deps.claims.requestCancel(runId, action);
    return ok(run);
  }

  /** Deletes a thread with its runs and its state (nothing of it may be in flight). */
  async discard(threadId: string): Promise<void> {
    const { records, plain, checkpointer } = this.deps;
    const runs = await records.runsOfThread(threadId);
    await records.write([...runs.map((r) => records.deleteRun(r.run_id)), ...(await plain.deleteOps(threadId)), records.deleteThread(threadId)]);
    for (const run of runs) if (run.status === 'pending') this.deps.onWithdrawn?.(run.run_id);
    await checkpointer.deleteThread(threadId);
    this.deps.onThreadDiscarded?.(threadId);
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
    for (const run of queued) await this.deps.eventLog.open(run.run_id, ownerOf(run), run.thread_id);
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
    this.renewal.start(lease);
    // by this server's clock alone, whatever a renewal in flight is waiting for
    if (claims.leased) every(lease.retryEveryMs, async () => this.renewal.stopUnrenewed(lease.stopAfterMs));
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
    this.renewal.stop();
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
    await this.deps.records.updateThread(threadId, (thread) => ({ ...thread, status: 'error', updated_at: nowIso() }));
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
      const taken = await this.deps.claims.claim({ status: RUN_STARTED, updated_at: nowIso() }, room, stillHere, this.deps.maxRunSlotsPerTenant);
      due = taken.due;
      for (const claim of taken.claims) this.begin(claim, sentAt);
      // fewer than there was room for: nothing more is claimable now, until the next wake-up
    } while (this.again && !stopped.aborted);
    if (stopped.aborted || due === undefined) return;
    clearTimeout(this.dueTimer);
    if (due !== null) {
      // a timer longer than setTimeout can hold fires at once (Node's TimeoutOverflowWarning):
      // a run delayed for years would wake the claim loop every millisecond; it is looked at
      // again after the longest wait instead
      this.dueTimer = setTimeout(() => this.wake(), Math.min(LONGEST_TIMER_MS, Math.max(0, due - Date.now()) + 5));
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
    const unreadable = running.claim?.unreadable;
    // runs claimed together start, and runs that end together conclude, one a turn, owners in rotation (turns.ts)
    await ownTurn(ownerOf(run), false, RUN_START);
    const { event, output, trace } = unreadable
      ? { event: { type: 'fail', error: unreadable } as const, output: undefined, trace: undefined }
      : await executeGraph(this.deps, run, running, log, (runId, reason) => this.stopLocal(runId, reason));
    // what it published last goes with its end's write (conclude records it, or ends or detaches its log)
    this.deps.eventLog.executed(run.run_id);
    await ownTurn(ownerOf(run), false, RUN_END);
    await this.conclude(run, running, event, output, trace, started, log);
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
      await untilDone(() => recordRunEnd(this.endDeps, claim, event, output, trace, started, told, running.protocol), 'record the end of the run').catch(
        (err) => log.error('the end of the run was not recorded before the stop; the run is recovered on the next start', { err }),
      );
    // another replica has the run now (this one was thought gone): its claim, its thread and its log are the new attempt's
    const lost = (event.type === 'stopped' && event.reason === 'lost') || told.stale === true;
    if (told.stale) log.warn('another replica took over this run; nothing of this attempt is recorded', { outcome: outcomeOf(event) });
    // listeners hear of the end before waiters are released, so what a client sees after
    // join/wait (metrics, a webhook already on its way) is consistent
    try {
      announceRunEnd(this.deps.onRunEnded, told.ended);
    } catch (err) {
      log.error('run end listener failed', { error: (err as Error).message });
    }
    const again = told.recorded?.status === 'pending';
    // the run goes on (a new attempt, here or elsewhere; or recovered on the next start)
    const resumes = lost || again || (event.type === 'platformInterrupted' && told.recorded === undefined);
    // a stateless run's own thread goes once the run has ended, and before its stream ends: a
    // client that saw `end` must not find the thread. Its log (the wait/join answer) stays.
    if (isTemporary(run) && !resumes)
      await this.discard(run.thread_id).catch((err: Error) => log.error('could not delete the temporary thread of a stateless run', { error: err.message }));
    if (this.inFlight.get(run.run_id) === running) this.inFlight.delete(run.run_id);
    // its events so far are written before its claim is given up (the next attempt numbers its events after them)
    if (resumes) await this.deps.eventLog.detach(run.run_id);
    // the next run of the thread may start (on any server) once the end is recorded (a final
    // end has given its claim up already, in the same write)
    if (!lost && !told.released)
      await untilDone(() => this.deps.claims.release(claim, told.recorded ?? { ...run, status: 'running' }), 'release the run claim').catch((err) =>
        log.error('the run claim was not released before the stop; it expires with its lease', { err }),
      );
    if (!resumes) await untilDone(() => this.deps.eventLog.end(run.run_id), 'close the log of the run');
    // a cancel that came while the new attempt was being recorded found the run still in
    // flight and only stopped what had already ended: it applies to the queued run now
    if (again && (running.stop === 'interrupt' || running.stop === 'rollback')) await this.cancel(run.thread_id, run.run_id, running.stop);
    log.routine('run finished', { outcome: outcomeOf(event), exec_ms: Date.now() - started });
  }
}
