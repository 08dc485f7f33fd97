// Where the runs are kept, as every reader and writer of runs asks for them: the run service,
// the streams and the state reads (a run by id, a thread's runs, its pages, the owner's runs by
// status), the run engine (a run's and its thread's record, the withdrawal of a pending run,
// the write operations it commits together, here or through a claim: RunClaims.recordEnd),
// and a run's first reads of its thread. One port for the runs' storage; the run claims
// (runClaims.ts) and the event logs (runEventLog.ts) are the capabilities beside it. Kept in
// the store's collections (adapters/run-storage/collectionRunStore.ts: the embedded store's,
// and PostgreSQL's, whose collections are tables) and, on PostgreSQL, with the lists,
// summaries and first reads in SQL (adapters/run-storage/pgRunStore.ts).
import type { RunStatus, ThreadStatus } from '../../../generated/agent-server/types.gen.ts';
import type { WriteOp } from './store.ts';
import type { RunRecord, ThreadRecord } from '../agent/records.ts';
import type { RunWindow, RunWindowSummary } from '../agent/runs/assistantRunMetrics.ts';
import type { FirstReadsKind, KnownReads } from '../agent/graphs/runContext.ts';

export interface RunStore {
  get(runId: string): Promise<RunRecord | undefined>;
  /** Every run on the thread, whoever owns it, in receipt order (run ids ascending). */
  onThread(threadId: string): Promise<RunRecord[]>;
  /** The ids of every run on the thread, in receipt order: what memory keeps of them, no record read (the embedded store). */
  idsOnThread(threadId: string): Promise<string[]>;
  /**
   * The owner's first run on the thread in receipt order that `matches`: the runs' ids and
   * owners read first, then their records one at a time, oldest first, until one matches (a
   * `run.start` asks which assistant the thread is bound to at every run; reading every record
   * of a thread grew with its history).
   */
  firstOnThread(threadId: string, owner: string, matches: (run: RunRecord) => boolean): Promise<RunRecord | undefined>;
  /** The thread's runs in no particular order, only those in `status` when given (the run engine's question). */
  runsOfThread(threadId: string, status?: 'pending' | 'running'): Promise<RunRecord[]>;
  /** One page of a thread's runs, newest (highest id) first. */
  ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]>;
  /** How many of the owner's runs are in flight (pending or running). */
  countInFlight(owner: string): Promise<number>;
  /** The owner's runs in these statuses, on one thread when given. */
  withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]>;
  /** The owner's runs of an assistant created in the window, counted by status, with duration percentiles. */
  summaryOfAssistant(window: RunWindow): Promise<RunWindowSummary>;
  /** Deletes the run's record (nothing when there is none). */
  delete(runId: string): Promise<void>;
  /**
   * Takes a pending run out of the queue: it becomes `cancelled` only while it is still pending,
   * atomically against a claim taking it. Whether it did.
   */
  withdraw(runId: string, cancelled: RunRecord): Promise<boolean>;
  thread(threadId: string): Promise<ThreadRecord | undefined>;
  /** Changes the thread's record atomically (nothing when there is none). */
  updateThread(threadId: string, change: (thread: ThreadRecord) => ThreadRecord): Promise<void>;
  /** The operation that stores a run's record (one of several written together: write, or Store.write). */
  putRun(run: RunRecord): WriteOp;
  deleteRun(runId: string): WriteOp;
  putThread(thread: ThreadRecord): WriteOp;
  /**
   * The operation that writes a run's end onto its thread in place (Store's SetOp): `fields`
   * set on the thread as it stands when the write applies (what was written to it since it was
   * read stays), its status `status.settled`, or `status.whileWaiting` when runs are pending on
   * it then; nothing when the thread is gone by then.
   */
  settleThread(threadId: string, fields: Partial<ThreadRecord>, status: { settled: ThreadStatus; whileWaiting: ThreadStatus }): WriteOp;
  deleteThread(threadId: string): WriteOp;
  /** Applies the operations atomically. */
  write(ops: WriteOp[]): Promise<void>;
  /**
   * What a run of a graph of `kind` reads first on the thread (KnownReads: the plain-state
   * head and, for a LangGraph graph, the newest root checkpoint with its pending writes), read
   * just before the run is handed to its executor and given to it, so that the run starts
   * without those round trips: a run worker's questions to the main thread, a database's
   * statements. Rejects when it cannot be read: the run then reads it itself.
   */
  firstReads(threadId: string, kind: Exclude<FirstReadsKind, undefined>): Promise<KnownReads>;
}
