// The runs as the run service, the streams and the state reads ask for them: one run by id,
// a thread's runs, its pages and the owner's runs by status, and the writes of a request
// (the run engine reads and writes runs through the collection still: runEngine.ts). Kept in
// the embedded store's collection (adapters/embedded/collectionRuns.ts) and, on PostgreSQL,
// in the runs table with the lists in SQL (adapters/postgres/pgRuns.ts).
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { WriteOp } from './store.ts';
import type { RunRecord } from '../agent/records.ts';
import type { RunWindow, RunWindowSummary } from '../agent/assistantRunMetrics.ts';

export interface RunsRepository {
  get(runId: string): Promise<RunRecord | undefined>;
  /** Every run on the thread, whoever owns it, in receipt order (run ids ascending). */
  onThread(threadId: string): Promise<RunRecord[]>;
  /** Deletes the run's record (nothing when there is none). */
  delete(runId: string): Promise<void>;
  /** The write that stores this run, for one atomic write with other records' (Store.write). */
  putOp(run: RunRecord): WriteOp;
  /** One page of a thread's runs, newest (highest id) first. */
  ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]>;
  /** How many of the owner's runs are in flight (pending or running). */
  countInFlight(owner: string): Promise<number>;
  /** The owner's runs in these statuses, on one thread when given. */
  withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]>;
  /** The owner's runs of an assistant created in the window, counted by status, with duration percentiles. */
  summaryOfAssistant(window: RunWindow): Promise<RunWindowSummary>;
}
