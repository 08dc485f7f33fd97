// A2A push notifications: when a run of a task ends (a terminal state or an interrupt), each
// push config of the task gets a POST of the task as it is then. Runs end on whichever
// replica executes them; configs and tasks are in the shared store, so any replica delivers.
// Delivery goes through the run webhooks' sender: the same network rules, retries and logs.
import type { AgentService } from '../agent/service.ts';
import type { RunEnded } from '../agent/runs/runEngine.ts';
import type { Task } from '../../../generated/a2a/types.gen.ts';
import type { WebhookDelivery } from '../webhooks/webhookNotifier.ts';
import type { Logger } from '../ports/logger.ts';
import type { PushConfigsRepository } from '../ports/pushConfigsRepository.ts';
import { A2ATaskService, currentRun } from './taskService.ts';
import type { A2ATasksRepository } from '../ports/a2aTasksRepository.ts';

export interface PushDeliveryDeps {
  tasks: A2ATasksRepository;
  configs: PushConfigsRepository;
  /** The agent server as the task's owner sees it. */
  agentFor(owner: string): AgentService;
  send(delivery: WebhookDelivery): void;
  /** The body of a notification (the binding's wire shape of the task). */
  render(task: Task): Record<string, unknown>;
  log: Logger;
}

/** A run-end listener that notifies the push configs of the run's task. */
export function pushOnRunEnd(deps: PushDeliveryDeps): (ended: RunEnded) => void {
  return (ended) => {
    const taskId = (ended.run.metadata as Record<string, unknown> | undefined)?.a2a_task_id;
    if (typeof taskId !== 'string') return;
    notify(deps, taskId, ended.run.run_id).catch((err: unknown) =>
      deps.log.warn('A2A push notification not sent', { task_id: taskId, run_id: ended.run.run_id, error: (err as Error).message }),
    );
  };
}

async function notify(deps: PushDeliveryDeps, taskId: string, runId: string): Promise<void> {
  const configs = await deps.configs.list(taskId);
  if (configs.length === 0) return;
  const record = await deps.tasks.get(taskId);
  // a later message started another run: that run's end notifies
  if (!record || currentRun(record) !== runId) return;
  const owner = record.owner ?? '';
  const agent = deps.agentFor(owner);
  const assistant = await agent.assistants.get(record.assistantId);
  if (!assistant.ok) return;
  const task = await new A2ATaskService(agent, deps.tasks, owner, record.user).view(assistant.value, record);
  const payload = deps.render(task);
  for (const config of configs) {
    const headers: Record<string, string> = {};
    if (config.token) headers['X-A2A-Notification-Token'] = config.token;
    if (config.authentication) headers.Authorization = [config.authentication.scheme, config.authentication.credentials].filter(Boolean).join(' ');
    deps.send({ url: config.url, runId, payload, headers, exact: true });
  }
}
