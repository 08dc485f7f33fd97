// What one firing of a cron does: a run through the ordinary queue — on the cron's thread,
// or on a new thread that is deleted after the run when `on_run_completed` is `delete`. A
// firing acts for the cron's owner (its scope): the thread and the run are that owner's.
import type { RunCreate } from '../../../generated/agent-server/types.gen.ts';
import { uuid4 } from '../agent/ids.ts';
import type { AgentService } from '../agent/service.ts';
import type { CronRecord } from './cronService.ts';
import type { FireCron } from './scheduler.ts';

export function cronFiring(agentFor: (owner: string) => Pick<AgentService, 'runs' | 'threads'>, onError: (cron: CronRecord, err: Error) => void): FireCron {
  return async (cron) => {
    const agent = agentFor(cron.scope);
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
    const created = await agent.runs.create(threadId, body);
    if (!created.ok) throw new Error(created.failure.detail);
    if (stateless && cron.on_run_completed !== 'keep') {
      // the thread goes once its run has ended; the firing itself does not wait for that
      void agent.runs
        .wait(threadId, created.value.run_id)
        .then(() => agent.threads.delete(threadId))
        .catch((err: Error) => onError(cron, err));
    }
  };
}
