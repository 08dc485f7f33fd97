// The runs' named queries the run service asks (the run engine reads runs by thread and
// status through the collection, whose `where` is the runs table's columns on PostgreSQL).
// Answered by the collection on the embedded store (collectionRuns.ts) and in SQL over the
// runs table on PostgreSQL (pgRuns.ts).
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { RunRecord } from '../agent/records.ts';
import type { RunWindow, RunWindowSummary } from '../agent/assistantRunMetrics.ts';

export interface RunsRepository {
  /** One page of a thread's runs, newest (highest id) first. */
  ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]>;
  /** The owner's runs in these statuses, on one thread when given. */
  withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]>;
  /** The owner's runs of an assistant created in the window, counted by status, with duration percentiles. */
  summaryOfAssistant(window: RunWindow): Promise<RunWindowSummary>;
}
