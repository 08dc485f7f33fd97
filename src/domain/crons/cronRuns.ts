// What one firing of a cron does: a run through the ordinary queue — on the cron's thread,
// or on a new thread that is deleted after the run when `on_run_completed` is `delete`.
import type { Run, RunCreate } from '../../../generated/agent-server/types.gen.ts';
import { uuid4 } from '../agent/ids.ts';
import type { CronRecord } from './cronService.ts';
import type { FireCron } from './scheduler.ts';

export interface CronRunHost {
  createRun(threadId: string, body: RunCreate): Promise<{ ok: true; value: Run } | { ok: false; failure: { detail: string } }>;
  waitForRun(threadId: string, runId: string): Promise<Run>;
  deleteThread(threadId: string): Promise<boolean>;
}

export function cronFiring(host: CronRunHost, onError: (cron: CronRecord, err: Error) => void): FireCron {
  return async (cron) => {
    const stateless = cron.thread_id === null;
    const threadId = cron.thread_id ?? uuid4();
    const payload = cron.payload as Partial<RunCreate>;
    const body: RunCreate = {
      ...payload,
      assistant_id: cron.assistant_id,
      metadata: { ...(payload.metadata as object | undefined), cron_id: cron.cron_id },
      multitask_strategy: payload.multitask_strategy ?? 'enqueue',
      ...(stateless ? { if_not_exists: 'create' as const } : {}),
    };
    const created = await host.createRun(threadId, body);
    if (!created.ok) throw new Error(created.failure.detail);
    if (stateless && cron.on_run_completed !== 'keep') {
      // the thread goes once its run has ended; the firing itself does not wait for that
      void host
        .waitForRun(threadId, created.value.run_id)
        .then(() => host.deleteThread(threadId))
        .catch((err: Error) => onError(cron, err));
    }
  };
}
