// Per-run event logs: written by the server executing the run, read from any server (SSE
// streams, join, wait, A2A). In process memory on the embedded store (adapters/run-storage/inMemoryRunEventLog.ts); in
// PostgreSQL, with the executing replica's live copy in memory, when replicas share a
// database (adapters/run-storage/pgRunEventLog.ts). It carries events and the join answer only: run
// statuses are the run engine's.
import type { RunEvent } from '../agent/runs/runEvent.ts';

export interface JoinOptions {
  lastEventId?: string;
  signal?: AbortSignal;
  present?: boolean;
}

export interface RunEventLog {
  /** Opens the run's log (when the run is queued); wakes readers of the thread's stream. */
  open(runId: string, owner: string, threadId?: string): Promise<void>;
  /** Resolves when a run is next queued on the thread, or when `signal` aborts. Registers at once. */
  nextRunOn(threadId: string, signal?: AbortSignal): Promise<void>;
  has(runId: string): Promise<boolean>;
  /** The owner the run's log was opened for; undefined without a log. */
  ownerOf(runId: string): Promise<string | undefined>;
  /**
   * Called by the server about to execute the run, before its first event. `lost` is called
   * when events of the run could not be kept after retries: the run must not go on as if its
   * readers had them (the engine starts it again as a new attempt). `attempt`: the run's; a
   * later attempt continues the log of the earlier ones, the first has nothing before it.
   */
  begin(runId: string, lost: (error: unknown) => void, attempt: number): Promise<void>;
  publish(runId: string, event: string, data: unknown): void;
  /**
   * The run has finished executing on this server: what it published since may wait for what
   * follows every execution (its end's write, RunClaims.recordEnd's `close`; `end`; `detach`),
   * which stores it with that write, rather than in a statement of its own.
   */
  executed(runId: string): void;
  /** The join/wait answer, kept with the log. */
  setResult(runId: string, result: unknown): void;
  result(runId: string): Promise<unknown>;
  /** Closes the run's log with the final `end` event (and the result set before). */
  end(runId: string): Promise<void>;
  /** Resolves when the run's log has ended (or at once when there is no log). */
  ended(runId: string, signal?: AbortSignal): Promise<void>;
  drop(runId: string): Promise<void>;
  /** This server stops executing the run without ending its log: its next attempt (here or elsewhere) continues it. */
  detach(runId: string): Promise<void>;
  /**
   * The run's events after `lastEventId`, live until `end`; nothing when the log is unknown.
   * `present`: only those there are now (the events so far), without waiting for more.
   */
  join(runId: string, options?: JoinOptions): AsyncGenerator<RunEvent>;
}
