// A run record as the run engine stores it when a run is created: pending, first attempt.
// For tests that drive the run queue (RunClaims) below the HTTP layer.
import type { RunRecord } from '../../src/domain/agent/records.ts';

export function pendingRun(run_id: string, thread_id: string, extra: Partial<RunRecord> = {}): RunRecord {
  const now = new Date().toISOString();
  return {
    run_id,
    thread_id,
    assistant_id: 'a',
    graph_id: 'echo',
    created_at: now,
    updated_at: now,
    status: 'pending',
    metadata: {},
    kwargs: {},
    multitask_strategy: 'enqueue',
    attempt: 1,
    ...extra,
  } as RunRecord;
}
