// What the run lifecycle needs when several replicas share the store: where a run's events
// are kept (so a reader on any replica follows a run executing on another) and how a run is
// claimed (so each runs exactly once, one at a time per thread, in receipt order). On the
// embedded store the RunBroker and the in-process RunQueue answer these; on PostgreSQL the
// implementations in src/backends/postgres/pgRun*.ts do.
import type { RunRecord } from './records.ts';
import type { RunEvent } from './runEvent.ts';

/** Per-run event logs: written by the replica executing the run, read from any replica. */
export interface RunEvents {
  /** Opens the run's log (when the run is queued); wakes readers of the thread's stream. */
  open(runId: string, owner: string, threadId?: string): Promise<void>;
  /** Resolves when a run is next queued on the thread, or when `signal` aborts. Registers at once. */
  nextRunOn(threadId: string, signal?: AbortSignal): Promise<void>;
  has(runId: string): Promise<boolean>;
  /** The owner the run's log was opened for; undefined without a log. */
  ownerOf(runId: string): Promise<string | undefined>;
  /** Called by the replica about to execute the run, before its first event. */
  begin(runId: string): Promise<void>;
  publish(runId: string, event: string, data: unknown): void;
  /** The join/wait answer, kept with the log. */
  setResult(runId: string, result: unknown): void;
  result(runId: string): Promise<unknown>;
  /** Closes the run's log with the final `end` event (and the result set before). */
  end(runId: string): Promise<void>;
  /** Resolves when the run's log has ended (or at once when there is no log). */
  ended(runId: string, signal?: AbortSignal): Promise<void>;
  drop(runId: string): Promise<void>;
  /** This replica stops executing the run without ending its log: the run goes on elsewhere or later. */
  detach(runId: string): Promise<void>;
  /** The run's events after `lastEventId`, live until `end`; nothing when the log is unknown. */
  join(runId: string, options?: { lastEventId?: string; signal?: AbortSignal }): AsyncGenerator<RunEvent>;
}

/** What happens to a run whose replica died while it ran (decided by the lifecycle). */
export type Abandoned = (run: RunRecord) => RunRecord;

/** The shared run queue: the run records are the queue; a claim is a leased right to execute one. */
export interface RunClaims {
  /**
   * Takes the oldest pending run of a thread with nothing running and no earlier pending run,
   * whose `after_seconds` have passed; marks it running (through `start`) and leases it to
   * this replica. Null when there is none to take now.
   */
  claim(start: (run: RunRecord) => RunRecord): Promise<RunRecord | null>;
  /** Epoch ms of the next pending run that waits for its `after_seconds`, if any. */
  nextDue(): Promise<number | null>;
  /**
   * Extends the leases this replica holds. Answers which of `held` it no longer holds (taken
   * over by another replica) and the cancels requested for the ones it does.
   */
  renew(held: string[]): Promise<{ lost: string[]; cancels: { runId: string; action: string }[] }>;
  /** Gives up the claim once the run's end is recorded (or it is back to pending). */
  release(runId: string): Promise<void>;
  /** Asks the replica executing the run to stop it (`interrupt` or `rollback`). */
  requestCancel(runId: string, action: string): Promise<void>;
  /**
   * Takes over the claims of replicas that are gone (their session ended) or whose lease ran
   * out: each run still `running` is changed by `abandoned` in the same transaction. Answers
   * the runs changed.
   */
  takeOverAbandoned(abandoned: Abandoned): Promise<RunRecord[]>;
  /** Calls `wake` when a run may have become claimable (queued, ended, released). */
  onClaimable(wake: () => void): () => void;
  /** Calls `cancel` when another replica asks for a run this replica may be executing. */
  onCancel(cancel: (runId: string, action: string) => void): () => void;
  /** Tells every replica a run may have become claimable. */
  announce(): Promise<void>;
}
