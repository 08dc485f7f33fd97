// Stored A2A task records. A task is not a run: it maps an A2A task id to its context
// (thread) and the runs its messages started, so tasks/get and tasks/cancel work by task
// id alone and a follow-up can keep the task id while starting a new run.
import type { Message, TaskState } from '../../../generated/a2a/types.gen.ts';
import type { Collection, Store } from '../ports/store.ts';
import { nowIso } from '../clock.ts';

/** What a finished run of the task produced, kept so later runs on the thread cannot blur it. */
export interface TaskOutcome {
  runId: string;
  state: TaskState;
  reply: string | null;
  /** The id of the reply's message in the thread, so status.message and history name it alike. */
  replyId?: string | null;
  /** The graph's final values when the assistant has no `messages` (the reply as data). */
  values: Record<string, unknown> | null;
  /** Why a failed run failed, as the run's `error` event told it. */
  error: string | null;
  at: string;
}

export interface TaskRecord {
  id: string;
  /** Its thread's owner (see ownerOf in agent/records.ts); absent is ''. */
  owner?: string;
  /**
   * The identity the project's custom auth (auth.path) gave the caller that created it; absent
   * without custom auth. Under custom auth a task is its creator's alone.
   */
  user?: string;
  contextId: string;
  /** The resolved assistant UUID: a task belongs to one A2A endpoint. */
  assistantId: string;
  /** Runs in the order the task's messages started them; the last is the current one. */
  runIds: string[];
  /** The run this task canceled through tasks/cancel (its `interrupted` means canceled). */
  canceledRunId: string | null;
  outcome: TaskOutcome | null;
  /**
   * The messages sent to the task, as sent: the history still shows one whose run never
   * reached the thread (canceled while it waited). Older records have none.
   */
  messages?: Message[];
  createdAt: string;
  updatedAt: string;
}

export class TaskStore {
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

  async create(fields: {
    id: string;
    owner: string;
    user?: string;
    contextId: string;
    assistantId: string;
    runId: string;
    message: Message;
  }): Promise<TaskRecord> {
    const now = nowIso();
    const record: TaskRecord = {
      id: fields.id,
      ...(fields.owner ? { owner: fields.owner } : {}),
      ...(fields.user !== undefined ? { user: fields.user } : {}),
      contextId: fields.contextId,
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
