// The A2A tasks in a collection of the store (on the embedded store, in memory and journalled;
// on PostgreSQL, rows of its documents table): each change of a task is one atomic update.
import type { Message } from '../../../generated/a2a/types.gen.ts';
import type { Collection, Store } from '../../domain/ports/store.ts';
import type { A2ATasksRepository, NewTask, TaskOutcome, TaskRecord } from '../../domain/ports/a2aTasksRepository.ts';
import { nowIso } from '../../domain/clock.ts';

export class CollectionA2ATasks implements A2ATasksRepository {
  private readonly tasks: Collection<TaskRecord>;

  constructor(store: Store) {
    this.tasks = store.collection<TaskRecord>('a2a_tasks', { indexes: ['contextId'] });
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return this.tasks.get(id);
  }

  /** Every task, or those of one context. */
  list(contextId?: string): Promise<TaskRecord[]> {
    return this.tasks.list(contextId === undefined ? {} : { where: { contextId } });
  }

  async create(fields: NewTask): Promise<TaskRecord> {
    const now = nowIso();
    const record: TaskRecord = {
      id: fields.id,
      ...(fields.owner ? { owner: fields.owner } : {}),
      ...(fields.user !== undefined ? { user: fields.user } : {}),
      contextId: fields.contextId,
      ...(fields.contextName !== undefined ? { contextName: fields.contextName } : {}),
      assistantId: fields.assistantId,
      runIds: [fields.runId],
      canceledRunId: null,
      outcome: null,
      messages: [fields.message],
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.tasks.insert(record.id, record))) throw new Error(`task ${record.id} already exists`);
    return record;
  }

  async addRun(id: string, runId: string, message: Message): Promise<TaskRecord | undefined> {
    return this.tasks.update(id, (t) => ({ ...t, runIds: [...t.runIds, runId], messages: [...(t.messages ?? []), message], updatedAt: nowIso() }));
  }

  async markCanceled(id: string, runId: string): Promise<TaskRecord | undefined> {
    return this.tasks.update(id, (t) => ({ ...t, canceledRunId: runId, updatedAt: nowIso() }));
  }

  /** Records the outcome of the task's current run; a stale run's outcome is ignored. */
  async saveOutcome(id: string, outcome: TaskOutcome): Promise<TaskRecord | undefined> {
    return this.tasks.update(id, (t) =>
      t.runIds[t.runIds.length - 1] === outcome.runId && t.outcome?.runId !== outcome.runId ? { ...t, outcome, updatedAt: nowIso() } : undefined,
    );
  }
}
