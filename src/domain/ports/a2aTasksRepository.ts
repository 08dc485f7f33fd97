// The A2A tasks as the task service keeps them: a task's create, the runs its messages start,
// its cancel and the outcome of its current run, read by id or by context. A task is not a
// run: it maps an A2A task id to its context (thread) and the runs its messages started, so
// tasks/get and tasks/cancel work by task id alone and a follow-up can keep the task id while
// starting a new run. Kept in the store's collection (adapters/embedded/collectionA2ATasks.ts).
import type { FilePart, Message, TaskState } from '../../../generated/a2a/types.gen.ts';

/** What a finished run of the task produced, kept so later runs on the thread cannot blur it. */
export interface TaskOutcome {
  runId: string;
  state: TaskState;
  reply: string | null;
  /** The files of the reply (its message's image, audio, video and file blocks), as file parts. */
  files?: FilePart[];
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
  /** The thread the task's runs run on (the context as a thread id). */
  contextId: string;
  /** The context as the client named it, when not by the thread id (a free string): what every answer calls it. */
  contextName?: string;
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

/** What a new task is made of: its first run and the message that started it. */
export interface NewTask {
  id: string;
  owner: string;
  user?: string;
  contextId: string;
  contextName?: string;
  assistantId: string;
  runId: string;
  message: Message;
}

export interface A2ATasksRepository {
  get(id: string): Promise<TaskRecord | undefined>;
  /** Every task, or those of one context. */
  list(contextId?: string): Promise<TaskRecord[]>;
  /** Stores a new task; rejects when its id is taken. */
  create(fields: NewTask): Promise<TaskRecord>;
  /** Appends a run and the message that started it; resolves to the task after (undefined: there is none). */
  addRun(id: string, runId: string, message: Message): Promise<TaskRecord | undefined>;
  /** Records the run this task canceled through tasks/cancel. */
  markCanceled(id: string, runId: string): Promise<TaskRecord | undefined>;
  /**
   * Records the outcome of the task's current run, atomically: a stale run's outcome (not the
   * last run, or recorded already) is ignored. Resolves to the task as stored after the call
   * (undefined: there is none).
   */
  saveOutcome(id: string, outcome: TaskOutcome): Promise<TaskRecord | undefined>;
}
