// Push notification configs of A2A tasks: webhooks a client registers for a task, called when
// a run of the task ends (see pushDelivery.ts). A config belongs to its task: whoever cannot
// see the task cannot see, add or remove its configs. The URL must pass the project's webhook
// rules (`webhooks.url`), as a run's webhook must.
import { randomUUID } from 'node:crypto';
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type { PushAuthentication, PushConfig, PushConfigsRepository } from '../ports/pushConfigsRepository.ts';
import { nowIso } from '../clock.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { taskNotFound } from './failures.ts';
import type { A2ATaskService } from './taskService.ts';

export type { PushAuthentication, PushConfig };

export type PushConfigInput = Pick<PushConfig, 'url'> & Partial<Pick<PushConfig, 'id' | 'token' | 'authentication'>>;

/** Configs a task may hold: each is a POST per run end, and a tenant's task should not fan out without bound. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

/** The push configs of the tasks one caller sees (through its A2ATaskService). */
export class TaskPushConfigs {
  constructor(
    private readonly tasks: A2ATaskService,
    private readonly store: PushConfigsRepository,
    /** Why a webhook may not go to this URL (the project's webhook rules), or null. */
    readonly urlProblem: (url: string) => string | null,
  ) {}

  async set(assistant: Assistant, taskId: string, input: PushConfigInput): Promise<Outcome<PushConfig, 'not_found' | 'invalid'>> {
    if (!(await this.tasks.find(assistant, taskId))) return taskNotFound(taskId);
    const problem = this.urlProblem(input.url);
    if (problem) return fail('invalid', `url: ${problem}`, { field: 'url' });
    const id = input.id || randomUUID();
    const existing = await this.store.list(taskId);
    if (!existing.some((c) => c.id === id) && existing.length >= MAX_PUSH_CONFIGS_PER_TASK) {
      return fail('invalid', `A task holds at most ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs; delete one first.`, { taskId });
    }
    const config: PushConfig = {
      id,
      taskId,
      url: input.url,
      ...(input.token ? { token: input.token } : {}),
      ...(input.authentication ? { authentication: input.authentication } : {}),
      createdAt: nowIso(),
    };
    await this.store.put(config);
    return ok(config);
  }

  async get(assistant: Assistant, taskId: string, id: string): Promise<Outcome<PushConfig, 'not_found'>> {
    if (!(await this.tasks.find(assistant, taskId))) return taskNotFound(taskId);
    const config = await this.store.get(taskId, id);
    return config ? ok(config) : fail('not_found', `Push notification config not found: ${id} of task ${taskId}`, { taskId, id });
  }

  async list(assistant: Assistant, taskId: string): Promise<Outcome<PushConfig[], 'not_found'>> {
    if (!(await this.tasks.find(assistant, taskId))) return taskNotFound(taskId);
    const configs = await this.store.list(taskId);
    return ok(configs.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1)));
  }

  /** Idempotent: a config already gone is deleted all the same. */
  async delete(assistant: Assistant, taskId: string, id: string): Promise<Outcome<void, 'not_found'>> {
    if (!(await this.tasks.find(assistant, taskId))) return taskNotFound(taskId);
    await this.store.delete(taskId, id);
    return ok(undefined);
  }
}
