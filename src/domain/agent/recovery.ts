// What happens to runs after a restart. Pending runs are queued again in the order they
// were received. A run that was `running` when the server died is started again as a new
// attempt (like the upstream server's retries: the `metadata` event carries `attempt`);
// after MAX_ATTEMPTS crashes it ends in status `error` with an explanation instead, so a
// run that kills the server cannot do so forever. Either way it is logged, never dropped.
import type { Logger } from '../../runtime/logger.ts';
import type { Collection, Store, WriteOp } from '../../runtime/store/types.ts';
import { nowIso } from './ids.ts';
import type { RunRecord, ThreadRecord } from './records.ts';

export const MAX_ATTEMPTS = 3;

export async function recoverRuns(deps: { runs: Collection<RunRecord>; threads: Collection<ThreadRecord>; store: Store; log: Logger }): Promise<RunRecord[]> {
  const running = await deps.runs.list({ where: { status: 'running' } });
  const pending = await deps.runs.list({ where: { status: 'pending' } });
  const requeued: RunRecord[] = [...pending];
  const ops: WriteOp[] = [];
  const now = nowIso();
  const failedThreads = new Set<string>();
  for (const run of running) {
    if (run.attempt >= MAX_ATTEMPTS) {
      const message = `The server stopped while this run was in progress, ${run.attempt} times; it was not started again.`;
      ops.push({ collection: deps.runs.name, id: run.run_id, value: { ...run, status: 'error', updated_at: now, error: { error: 'RunInterruptedByServerRestart', message } } });
      failedThreads.add(run.thread_id);
      deps.log.warn('run abandoned after repeated server crashes', { run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt });
      continue;
    }
    const retry: RunRecord = { ...run, status: 'pending', attempt: run.attempt + 1, updated_at: now };
    ops.push({ collection: deps.runs.name, id: run.run_id, value: retry });
    requeued.push(retry);
    deps.log.warn('run was in progress when the server stopped; starting it again', { run_id: run.run_id, thread_id: run.thread_id, attempt: retry.attempt });
  }
  const stillQueued = new Set(requeued.map((r) => r.thread_id));
  for (const threadId of failedThreads) {
    const thread = await deps.threads.get(threadId);
    if (thread && !stillQueued.has(threadId)) ops.push({ collection: deps.threads.name, id: threadId, value: { ...thread, status: 'error', updated_at: now } });
  }
  await deps.store.write(ops);
  if (requeued.length) deps.log.info('runs queued again after restart', { count: requeued.length });
  return requeued.sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0));
}
