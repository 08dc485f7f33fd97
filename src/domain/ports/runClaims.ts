// The run queue the run engine claims from. The pending run records are the queue; a claim is
// a leased right to execute one run, so each run executes once at a time, one run at a time
// per thread, in receipt order, threads concurrently. In process (adapters/run-storage/inProcessRunClaims.ts)
// the one server holds every claim; on PostgreSQL (adapters/run-storage/pgRunClaims.ts) replicas share
// the queue and take over the claims of a replica that is gone. Every write of a run's outcome
// goes through its claim (recordEnd): a server whose claim was taken over writes nothing.
import type { RunError, RunRecord, ThreadRecord } from '../agent/records.ts';
import type { WriteOp } from './store.ts';

/** What becomes of a run whose holder is gone (decided by the run state machine). */
export type Abandoned = (run: RunRecord) => RunRecord;

export interface Recovered {
  /** Runs that were `running` under a holder that is gone, as `abandoned` changed them. */
  abandoned: RunRecord[];
  /** Runs this call (re)loaded into a queue that lives in process memory: their logs are opened again. */
  queued: RunRecord[];
}

/** How a run's log ends after its final end (RunClaims.recordEnd's `close`). */
export interface LogClose {
  /** The events published once the end is recorded, before `end` (a protocol run's last lifecycle event, or the run's error). */
  events: { event: string; data: unknown }[];
  /** The join/wait answer kept with the log; undefined for none. */
  result: unknown;
}

/**
 * The run and its thread as a run's end is about to be recorded (undefined: deleted meanwhile).
 * The end writes its thread in place (RunStore.settleThread), not this copy back: the thread
 * may change before the write, and what changed stays.
 */
export interface EndState {
  run: RunRecord | undefined;
  /** Whether the run's thread is still there. */
  threadThere: boolean;
  /** The thread's record, when asked for (endState's `withThread`) and still there. */
  thread: ThreadRecord | undefined;
}

/** What a claim changes on a run's record: it is running from now on. */
export interface RunStart {
  status: RunRecord['status'];
  updated_at: string;
}

/** A claim this server holds: the run as it was claimed (its attempt) and the claim's own token. */
export interface Claim {
  run: RunRecord;
  /** This claim's and no other's: a run taken over and claimed again (by any server) has a new one. */
  token: string;
  /**
   * The run's record could not be read where it is kept (a value stored before the store
   * refused it, such as a NUL PostgreSQL's json functions cannot read): it ends with this
   * error without executing, and no other run waits for it.
   */
  unreadable?: RunError;
}

export interface RunClaims {
  /**
   * Whether a claim not renewed in time may be taken over by another server (replicas sharing
   * a database): the engine then stops its runs itself before that can happen.
   */
  readonly leased: boolean;
  /**
   * Whether recordEnd's own check, that the run is still `running` at the claim's attempt, also
   * finds its thread there (the run's record goes when its thread does). A successful end, which
   * takes nothing from the thread or the stored run, is then written from the run as claimed,
   * with no endState read before it: endState is asked only when the write finds nothing, to tell
   * a thread deleted meanwhile from a claim taken over.
   */
  readonly endChecksThread: boolean;
  /**
   * Takes up to `room` runs, each the oldest pending run of a thread with nothing running and
   * no earlier pending run, whose `after_seconds` have passed, in the order of the fair share
   * between owners (agent/runs/runFairShare.ts: oldest first within an owner); marks each
   * running with `started` (its status and updated_at, nothing else of the record changes)
   * and leases it to this server, atomically: a run is running exactly when it has a claim.
   * Runs in `skip` are not taken (an earlier attempt of theirs is still stopping here).
   * An owner's runs executing on this server never pass `perOwner` with the runs taken
   * (agent/runs/runFairShare.ts: the shared space, owner '', is not capped).
   * `due`: epoch ms of the next pending run still waiting for its `after_seconds`, if any
   * (read with the claim: on PostgreSQL one statement takes the runs and answers it).
   */
  claim(started: RunStart, room: number, skip?: ReadonlySet<string>, perOwner?: number): Promise<{ claims: Claim[]; due: number | null }>;
  /**
   * Stores a new pending run (`ops`: the run and its thread), opens its log for `owner`'s
   * readers and wakes its thread's waiters (RunEventLog.open), and tells the claimers, in one
   * step where the backend can (PostgreSQL: one statement). `woke`: whether this server should
   * look for work now (false when the thread was busy: the end of the run before it looks).
   */
  enqueue(ops: WriteOp[], run: RunRecord, owner: string): Promise<{ woke: boolean }>;
  /**
   * Extends the leases of `held`. Answers the run ids of those this server no longer holds
   * (taken over by another replica) and the cancels requested for the ones it does. Rejects
   * when the leases could not be reached (the engine then stops its runs before they expire).
   */
  renew(held: Claim[]): Promise<{ lost: string[]; cancels: { runId: string; action: string }[] }>;
  /**
   * Writes the run's outcome (`ops`, one transaction) only while `claim` is still this server's
   * claim of the run, and the run is still `running` at the claim's attempt: checked in the
   * write itself, so a claim taken over meanwhile writes nothing. False when nothing was written.
   * With `release` (the run as recorded, in a final status), the claim is given up in the same
   * write, as `release` would (PostgreSQL: the one statement deletes it behind the same fence).
   * With `close` too, a backend whose run logs are stored may end the run's log in the same
   * write (PostgreSQL: its last events, `close.events`, then `end`, with `close.result`): the
   * caller publishes `close.events`, sets the result and ends the log (RunEventLog.end) as
   * ever once the end is recorded, and what the write stored already is not stored again.
   */
  recordEnd(claim: Claim, ops: WriteOp[], release?: RunRecord, close?: LogClose): Promise<boolean>;
  /**
   * What the end of a run is written from: the run's record, whether its thread is there and,
   * with `withThread`, the thread's record (PostgreSQL: one statement; without it, the thread's
   * document, its values the largest a run moves, is neither read nor sent; a backend may give
   * the record anyway).
   */
  endState(run: RunRecord, withThread: boolean): Promise<EndState>;
  /**
   * Gives the claim up once the run's end is recorded; `run` as recorded then (pending again:
   * a new attempt, first in its thread's line). Nothing when the claim is no longer this one
   * (taken over). Rejects when it could not be given up.
   */
  release(claim: Claim, run: RunRecord): Promise<void>;
  /** Asks the server executing the run to stop it (`interrupt` or `rollback`). */
  requestCancel(runId: string, action: string): Promise<void>;
  /**
   * Takes back the claims whose holder is gone (a replica that died or whose lease ran out;
   * in process: the previous process, on the first call): each run still `running` is changed
   * by `abandoned`, atomically with taking its claim.
   */
  recover(abandoned: Abandoned): Promise<Recovered>;
  /** Calls `wake` when a run may have become claimable (queued, ended, released) by another server's doing: the engine looks by itself after its own. */
  onClaimable(wake: () => void): () => void;
  /** Calls `cancel` when another server asks for a run this one may be executing. */
  onCancel(cancel: (runId: string, action: string) => void): () => void;
}
