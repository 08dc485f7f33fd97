// Run figures of one assistant over a window (GET /assistants/{id}/metrics): how many runs,
// how many failed, and how long the finished ones took. A backend summarises the window's runs
// (counts by status and two duration percentiles, in SQL on PostgreSQL); this turns a summary
// into the reply, and summarises runs held in memory the same way PostgreSQL does.
import { RUN_STATUSES, type AssistantRunMetrics, type RunStatus } from '../../../../generated/agent-server/types.gen.ts';
import { FINAL_STATUSES } from '../records.ts';

/** Finished runs that count as failures: the graph raised, or ran out of time. */
const FAILED: readonly RunStatus[] = ['error', 'timeout'];

/** What a backend answers about one assistant's runs in a window. */
export interface RunWindowSummary {
  /** Runs per status (a status with none may be absent). */
  byStatus: Partial<Record<RunStatus, number>>;
  /** Duration percentiles of the finished runs in ms; null when none finished. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** The window's runs of an assistant, as a repository is asked for them. */
export interface RunWindow {
  owner: string;
  assistantId: string;
  /** Runs created at or after this instant. */
  since: Date;
}

/**
 * The `fraction` percentile of ascending values, interpolated linearly between the two nearest
 * ranks (PostgreSQL's percentile_cont), so both backends answer the same figure.
 */
export function percentile(ascending: readonly number[], fraction: number): number | null {
  if (ascending.length === 0) return null;
  const rank = fraction * (ascending.length - 1);
  const below = Math.floor(rank);
  const above = Math.ceil(rank);
  return ascending[below] + (ascending[above] - ascending[below]) * (rank - below);
}

/** Summarises runs already filtered to the window; a run's duration is updated_at − created_at once finished. */
export function summarizeRuns(runs: readonly { status: string; created_at: string; updated_at?: string | null }[]): RunWindowSummary {
  const byStatus: Partial<Record<RunStatus, number>> = {};
  const durations: number[] = [];
  for (const run of runs) {
    const status = run.status as RunStatus;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (FINAL_STATUSES.has(run.status) && run.updated_at) durations.push(Date.parse(run.updated_at) - Date.parse(run.created_at));
  }
  durations.sort((a, b) => a - b);
  return { byStatus, p50Ms: percentile(durations, 0.5), p95Ms: percentile(durations, 0.95) };
}

/** The reply: counts for every status, the error rate over finished runs (null before any finished). */
export function assistantRunMetrics(assistantId: string, windowS: number, summary: RunWindowSummary): AssistantRunMetrics {
  const byStatus = Object.fromEntries(RUN_STATUSES.map((status) => [status, summary.byStatus[status] ?? 0])) as AssistantRunMetrics['by_status'];
  const runCount = RUN_STATUSES.reduce((sum, status) => sum + byStatus[status], 0);
  const finishedCount = RUN_STATUSES.filter((status) => FINAL_STATUSES.has(status)).reduce((sum, status) => sum + byStatus[status], 0);
  const errorCount = FAILED.reduce((sum, status) => sum + byStatus[status], 0);
  return {
    assistant_id: assistantId,
    window_s: windowS,
    run_count: runCount,
    finished_count: finishedCount,
    error_count: errorCount,
    error_rate: finishedCount === 0 ? null : errorCount / finishedCount,
    p50_ms: summary.p50Ms,
    p95_ms: summary.p95Ms,
    by_status: byStatus,
  };
}
