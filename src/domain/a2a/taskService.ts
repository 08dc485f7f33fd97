// A2A tasks on top of the agent server: a message starts (or continues) a task by queueing
// a run on the task's thread; the task's state, reply and history are read back from that
// run and the thread. Knows nothing of HTTP or JSON-RPC: failures are outcomes with a kind.
import { randomUUID } from 'node:crypto';
import type {
  Artifact,
  Message,
  MessageSendParams,
  Part,
  Task,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
  StreamEventResult,
} from '../../../generated/a2a/types.gen.ts';
import type { Assistant, Run, ThreadState } from '../../../generated/agent-server/types.gen.ts';
import type { AgentService } from '../agent/service.ts';
import { isUuid } from '../../shared/uuid.ts';
import { uuid5 } from '../agent/ids.ts';
import { dataOf } from '../../shared/jsonText.ts';
import { fail, ok, type FailureKind, type Outcome } from '../outcome.ts';
import { isTerminal, lastN, latestReply, resumeCommand, taskState, toA2AHistory, toRunInput } from './convert.ts';
import { taskEnded, taskNotCancelable, taskNotFound } from './failures.ts';
import type { A2ATasksRepository, TaskOutcome, TaskRecord } from '../ports/a2aTasksRepository.ts';

/** How a message naming a task continues it; the A2A 0.3 endpoint keeps both off (see docs/a2a.md). */
export interface FollowUpRules {
  /** A task in a terminal state takes no more messages (A2A v1.0 §3.1.1): `conflict`. */
  refuseEnded?: boolean;
  /** A message to a task waiting at an interrupt resumes the graph with the message as the interrupt's value. */
  resumeInterrupts?: boolean;
}

export interface TaskQuery {
  contextId?: string;
  state?: TaskState;
  /** ISO time: only tasks whose status changed at or after it. */
  updatedAfter?: string;
  pageSize: number;
  pageToken?: string;
  historyLength?: number;
}

export interface TaskPage {
  tasks: Task[];
  /** Empty on the last page. */
  nextPageToken: string;
  totalSize: number;
}

export interface StartedTask {
  record: TaskRecord;
  runId: string;
  /** The Task as submitted: the first event of a stream, the reply of a non-blocking send. */
  submitted: Task;
}

const ACTIVE = new Set<Run['status']>(['pending', 'running']);
/** Namespace of the threads that contexts named by a free string stand for (UUIDv5). */
const CONTEXT_NAMESPACE = 'b67ade6b-c837-4c34-86e7-86c2c23f462b';

/** The contextId a client sees for a task: the string it named the context by, else the thread id. */
const contextOf = (record: TaskRecord): string => record.contextName ?? record.contextId;
export const currentRun = (record: TaskRecord): string => record.runIds[record.runIds.length - 1];

/** A2A tasks as one owner sees them (see ownerOf in agent/records.ts): another's are unknown. */
export class A2ATaskService {
  constructor(
    /** The agent server as the same owner sees it. */
    private readonly agent: AgentService,
    private readonly tasks: A2ATasksRepository,
    private readonly owner: string,
    /** The caller's identity under the project's custom auth: tasks are kept apart by it too (undefined: none). */
    private readonly user?: string,
  ) {}

  /** Whether the record is this caller's: its owner's, and under custom auth its creator's. */
  private isMine(record: TaskRecord): boolean {
    return (record.owner ?? '') === this.owner && record.user === this.user;
  }

  /**
   * The thread a context names. A UUID is the thread itself; any other string (a client's own
   * conversation id, @ag-ui/a2a's thread id) names a thread of this caller's, the same one each
   * time: UUIDv5 of the owner, the user and the string, so two tenants' equal strings never meet.
   */
  threadOf(contextId: string): string {
    return isUuid(contextId) ? contextId : uuid5(JSON.stringify([this.owner, this.user ?? null, contextId]), CONTEXT_NAMESPACE);
  }

  /** Validates a message and queues its run: on a new task, or on the task named by `taskId`. */
  async start(
    assistant: Assistant,
    params: MessageSendParams,
    rules: FollowUpRules = {},
  ): Promise<Outcome<StartedTask, 'invalid' | 'not_found' | 'unsupported' | 'unsupported_media' | 'conflict'>> {
    const { message } = params;
    if (params.configuration?.pushNotificationConfig) return fail('unsupported', 'Push Notification is not supported');
    // a follow-up that answers an interrupt is the interrupt's value, not new graph input
    const waiting = rules.resumeInterrupts && message.taskId !== undefined ? await this.waitingTask(assistant, message.taskId) : undefined;
    const converted = waiting ? resumeCommand(message, waiting.pending) : asInput(toRunInput(message, await this.agent.assistants.hasMessages(assistant)));
    if (!converted.ok) return converted;
    const named = message.contextId !== undefined ? this.threadOf(message.contextId) : undefined;
    // a context another caller's tasks live in is not this caller's to continue: its thread
    // holds their conversation (the same answer as a context that cannot take a run)
    if (message.taskId === undefined && named !== undefined && (await this.tasks.list(named)).some((r) => !this.isMine(r))) {
      return fail('invalid', `Thread ${message.contextId} not found`, { thread_id: message.contextId, error_type: 'thread_not_found' });
    }
    let existing: TaskRecord | undefined;
    if (message.taskId !== undefined) {
      existing = await this.find(assistant, message.taskId);
      if (!existing) return taskNotFound(message.taskId);
      if (named !== undefined && named !== existing.contextId) {
        return fail('invalid', `contextId '${message.contextId}' is not the context of task '${existing.id}' (${contextOf(existing)}).`);
      }
      if (rules.refuseEnded) {
        const { state } = (await this.view(assistant, existing, { historyLength: 0 })).status;
        if (isTerminal(state)) return taskEnded(existing.id, state);
      }
    }
    const taskId = existing?.id ?? randomUUID();
    const threadId = existing?.contextId ?? named ?? randomUUID();
    // the client's own string is what every answer calls the context
    const contextName = existing ? existing.contextName : message.contextId !== undefined && message.contextId !== threadId ? message.contextId : undefined;
    const shownContext = contextName ?? threadId;
    const created = await this.agent.runs.create(threadId, {
      assistant_id: assistant.assistant_id,
      ...converted.value,
      if_not_exists: 'create',
      multitask_strategy: 'enqueue',
      metadata: { a2a_task_id: taskId, a2a_message_id: message.messageId },
    });
    if (!created.ok) {
      // the caller named a context that cannot take a run: its params are what is wrong
      const data = created.failure.kind === 'not_found' ? { thread_id: threadId, error_type: 'thread_not_found' } : undefined;
      return fail('invalid', created.failure.detail, data);
    }
    const runId = created.value.run_id;
    const ids = { contextId: shownContext, taskId };
    const sent: Message = { ...message, ...ids };
    const record = existing
      ? await this.tasks.addRun(existing.id, runId, sent)
      : await this.tasks.create({
          id: taskId,
          owner: this.owner,
          user: this.user,
          contextId: threadId,
          ...(contextName !== undefined ? { contextName } : {}),
          assistantId: assistant.assistant_id,
          runId,
          message: sent,
        });
    if (!record) return taskNotFound(taskId);
    const submitted: Task = {
      kind: 'task',
      id: taskId,
      contextId: shownContext,
      status: { state: 'submitted', timestamp: created.value.created_at },
      history: [sent],
    };
    return ok({ record, runId, submitted });
  }

  /** The task when it waits at an interrupt, with whether an interrupt() call awaits a value (else a breakpoint). */
  private async waitingTask(assistant: Assistant, id: string): Promise<{ record: TaskRecord; pending: boolean } | undefined> {
    const record = await this.find(assistant, id);
    if (!record) return undefined;
    const task = await this.view(assistant, record, { historyLength: 0 });
    if (task.status.state !== 'input-required') return undefined;
    const state = await this.agent.threads.getState(record.contextId);
    const pending = state.ok && state.value.tasks.some((t) => (t.interrupts?.length ?? 0) > 0);
    return { record, pending };
  }

  /**
   * The caller's tasks on this assistant, newest status first, a page at a time. The page
   * token is the sort key of the page's last task, so a page does not shift when newer tasks
   * arrive.
   */
  async list(assistant: Assistant, query: TaskQuery): Promise<Outcome<TaskPage, 'invalid'>> {
    let after: { at: string; id: string } | undefined;
    if (query.pageToken) {
      after = decodePageToken(query.pageToken);
      if (!after) return fail('invalid', 'pageToken: not a token this server gave (use the nextPageToken of the previous page)', { field: 'pageToken' });
    }
    const records = await this.tasks.list(query.contextId === undefined ? undefined : this.threadOf(query.contextId));
    const mine = records.filter((r) => this.isMine(r) && r.assistantId === assistant.assistant_id);
    const views = await Promise.all(mine.map((r) => this.view(assistant, r, { historyLength: query.historyLength })));
    const since = query.updatedAfter ? Date.parse(query.updatedAfter) : undefined;
    const matching = views
      .filter((t) => (query.state === undefined || t.status.state === query.state) && (since === undefined || Date.parse(t.status.timestamp ?? '') >= since))
      .map((task) => ({ task, at: sortableTime(task.status.timestamp) }))
      .sort((a, b) => (a.at === b.at ? (a.task.id < b.task.id ? 1 : -1) : a.at < b.at ? 1 : -1));
    const start = after ? matching.findIndex((t) => t.at < after.at || (t.at === after.at && t.task.id < after.id)) : 0;
    const rest = start < 0 ? [] : matching.slice(start);
    const page = rest.slice(0, query.pageSize);
    const last = page[page.length - 1];
    const nextPageToken = rest.length > page.length && last ? encodePageToken({ at: last.at, id: last.task.id }) : '';
    return ok({ tasks: page.map((t) => t.task), nextPageToken, totalSize: matching.length });
  }

  /** tasks/get: the task as it is now. */
  async get(assistant: Assistant, id: string, options: { contextId?: string; historyLength?: number } = {}): Promise<Outcome<Task, 'not_found'>> {
    const record = await this.find(assistant, id, options.contextId);
    if (!record) return taskNotFound(id);
    return ok(await this.view(assistant, record, { historyLength: options.historyLength }));
  }

  /** tasks/resubscribe: the task now, and its record to follow; a finished task has nothing to follow. */
  async resubscribe(assistant: Assistant, id: string): Promise<Outcome<{ task: Task; record: TaskRecord }, 'not_found' | 'invalid'>> {
    const record = await this.find(assistant, id);
    if (!record) return taskNotFound(id);
    const task = await this.view(assistant, record);
    if (isTerminal(task.status.state)) return fail('invalid', `Task ${id} is already ${task.status.state}; there is nothing to resubscribe to.`);
    return ok({ task, record });
  }

  /** The task if it exists, is this owner's and belongs to this assistant's endpoint; malformed ids are simply unknown. */
  async find(assistant: Assistant, id: string, contextId?: string): Promise<TaskRecord | undefined> {
    const record = await this.tasks.get(id);
    if (!record || !this.isMine(record) || record.assistantId !== assistant.assistant_id) return undefined;
    if (contextId !== undefined && this.threadOf(contextId) !== record.contextId) return undefined;
    return record;
  }

  /** Resolves once the run is no longer pending or running. */
  async wait(record: TaskRecord, runId: string, signal?: AbortSignal): Promise<void> {
    await this.agent.runs.wait(record.contextId, runId, signal);
  }

  /** The task as it is now, from its current run and its thread. */
  async view(assistant: Assistant, record: TaskRecord, options: { historyLength?: number } = {}): Promise<Task> {
    const runId = currentRun(record);
    const [found, threadState] = await Promise.all([this.agent.runs.get(record.contextId, runId), this.agent.threads.getState(record.contextId)]);
    const run = found.ok ? found.value : undefined;
    const state = threadState.ok ? threadState.value : undefined;
    const canceled = record.canceledRunId === runId;
    let outcome = record.outcome?.runId === runId ? record.outcome : null;
    let status: TaskStatus;
    if (!run) {
      // a rolled-back run is gone; what we recorded about it is all there is
      status = { state: outcome?.state ?? (canceled ? 'canceled' : 'unknown'), timestamp: outcome?.at ?? record.updatedAt };
    } else {
      let s = taskState(run.status, { canceled, awaitingInput: run.status === 'success' && (state?.next.length ?? 0) > 0 });
      if (canceled && s === 'input-required') s = 'canceled';
      status = { state: s, timestamp: run.updated_at };
      if (!outcome && (isTerminal(s) || s === 'input-required')) {
        outcome = await this.outcomeOf(assistant, runId, s, run.updated_at, state);
        await this.tasks.saveOutcome(record.id, outcome);
      }
    }
    const ids = { contextId: contextOf(record), taskId: record.id };
    const parts = outcome ? replyParts(outcome) : [];
    const task: Task = { kind: 'task', id: record.id, contextId: ids.contextId, status };
    const message = outcome ? statusMessage(status.state, outcome, parts, ids) : undefined;
    if (message) task.status = { ...status, message };
    if (outcome && status.state === 'completed' && parts.length > 0) task.artifacts = [responseArtifact(runId, parts)];
    task.history = lastN(withSentMessages(toA2AHistory(state?.values?.messages, ids), record.messages ?? []), options.historyLength);
    return task;
  }

  /** Cancels the task's pending or running run; a task in a terminal state cannot be canceled. */
  async cancel(assistant: Assistant, id: string): Promise<Outcome<Task, 'not_found' | 'conflict'>> {
    const record = await this.find(assistant, id);
    if (!record) return taskNotFound(id);
    const before = await this.view(assistant, record, { historyLength: 0 });
    if (isTerminal(before.status.state)) return taskNotCancelable(id, before.status.state);
    const runId = currentRun(record);
    const marked = (await this.tasks.markCanceled(id, runId)) ?? record;
    const run = await this.agent.runs.get(record.contextId, runId);
    if (run.ok && ACTIVE.has(run.value.status)) {
      const canceled = await this.agent.runs.cancel(record.contextId, runId, 'interrupt');
      if (canceled.ok && ACTIVE.has(canceled.value.status)) await this.agent.runs.wait(record.contextId, runId);
    }
    const after = await this.view(assistant, (await this.tasks.get(id)) ?? marked);
    // the run may have finished on its own before the cancel reached it
    if (after.status.state !== 'canceled') return taskNotCancelable(id, after.status.state);
    return ok(after);
  }

  /**
   * Follows the task's current run to its end: `working` (with the AI text so far as it
   * changes), the response artifact, then the final status update.
   */
  async *follow(assistant: Assistant, record: TaskRecord, runId: string, signal?: AbortSignal): AsyncGenerator<StreamEventResult> {
    const ids = { contextId: contextOf(record), taskId: record.id };
    const update = (status: TaskStatus, final = false): TaskStatusUpdateEvent => ({ kind: 'status-update', ...ids, status, final });
    let working = false;
    let lastText: string | null = null;
    let replyId: string | null = null;
    for await (const event of this.agent.runs.events(runId, { signal })) {
      if (!working) {
        working = true;
        yield update({ state: 'working', timestamp: new Date().toISOString() });
      }
      const data = dataOf(event.data);
      if (event.event !== 'values' || !data || typeof data !== 'object') continue;
      const reply = latestReply((data as { messages?: unknown }).messages);
      if (reply?.text && reply.text !== lastText) {
        lastText = reply.text;
        // the reply keeps one id while it grows: the id it has in the thread once it has one
        replyId = reply.id ?? replyId;
        yield update({
          state: 'working',
          message: agentMessage(replyId ?? `${runId}-partial`, [{ kind: 'text', text: reply.text }], ids),
          timestamp: new Date().toISOString(),
        });
      }
    }
    if (signal?.aborted) return;
    await this.agent.runs.wait(record.contextId, runId, signal);
    const task = await this.view(assistant, (await this.tasks.get(record.id)) ?? record, { historyLength: 0 });
    if (!working && task.status.state !== 'canceled') yield update({ state: 'working', timestamp: new Date().toISOString() });
    for (const artifact of task.artifacts ?? []) yield { kind: 'artifact-update', ...ids, artifact, lastChunk: true };
    yield update(task.status, true);
  }

  private async outcomeOf(assistant: Assistant, runId: string, state: TaskOutcome['state'], at: string, thread: ThreadState | undefined): Promise<TaskOutcome> {
    const values = (thread?.values ?? {}) as Record<string, unknown>;
    const hasMessages = await this.agent.assistants.hasMessages(assistant);
    const reply = hasMessages ? latestReply(values.messages) : null;
    return {
      runId,
      state,
      at,
      reply: reply?.text || null,
      ...(reply?.files.length ? { files: reply.files } : {}),
      replyId: reply?.id ?? null,
      values: hasMessages || state !== 'completed' ? null : withoutMessages(values),
      error: state === 'failed' ? await this.runError(runId) : null,
    };
  }

  /** The message of a finished run's `error` event (its log is finite once the run ended). */
  private async runError(runId: string): Promise<string | null> {
    let error: string | null = null;
    for await (const event of this.agent.runs.events(runId)) {
      const data = dataOf(event.data);
      if (event.event !== 'error' || !data || typeof data !== 'object') continue;
      const { error: kind, message } = data as { error?: unknown; message?: unknown };
      error = [kind, message].filter((x) => typeof x === 'string' && x).join(': ') || null;
    }
    return error;
  }
}

/** Plain-function graphs always store a (here empty and meaningless) `messages` list. */
function withoutMessages(values: Record<string, unknown>): Record<string, unknown> {
  const { messages: _messages, ...rest } = values;
  return rest;
}

/**
 * The thread's history, and after it each message sent to the task that the thread never
 * received (its run was canceled or failed before it read its input), so no message the
 * client sent disappears from the task.
 */
function withSentMessages(history: Message[], sent: Message[]): Message[] {
  const seen = new Set(history.map((m) => m.messageId));
  return [...history, ...sent.filter((m) => !seen.has(m.messageId))];
}

function replyParts(outcome: TaskOutcome): Part[] {
  if (outcome.reply || outcome.files?.length) return [...(outcome.reply ? [{ kind: 'text' as const, text: outcome.reply }] : []), ...(outcome.files ?? [])];
  if (outcome.values) return [{ kind: 'data', data: outcome.values }];
  return [];
}

function agentMessage(messageId: string, parts: Part[], ids: { contextId: string; taskId: string }): Message {
  return { kind: 'message', messageId, role: 'agent', parts: parts as Message['parts'], ...ids };
}

function statusMessage(state: TaskState, outcome: TaskOutcome, parts: Part[], ids: { contextId: string; taskId: string }): Message | undefined {
  // the reply is a message of the thread: the same id here as in the task's history
  const id = ((outcome.reply || outcome.files?.length) && outcome.replyId) || `run-${outcome.runId}`;
  if (state === 'failed') {
    const text = `The run ${outcome.runId} failed${outcome.error ? `: ${outcome.error}` : '.'}`;
    return agentMessage(id, [{ kind: 'text', text }], ids);
  }
  if (state === 'input-required' && parts.length === 0) {
    return agentMessage(id, [{ kind: 'text', text: 'The agent is waiting for input.' }], ids);
  }
  return parts.length > 0 && state !== 'canceled' ? agentMessage(id, parts, ids) : undefined;
}

function responseArtifact(runId: string, parts: Part[]): Artifact {
  return { artifactId: `artifact-${runId}`, name: 'Assistant Response', parts };
}

/** A timestamp that sorts as text: ISO in UTC (the agent server may write `+00:00`). */
function sortableTime(value: string | undefined): string {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

function encodePageToken(key: { at: string; id: string }): string {
  return Buffer.from(JSON.stringify([key.at, key.id])).toString('base64url');
}

function decodePageToken(token: string): { at: string; id: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') return { at: value[0], id: value[1] };
  } catch {
    /* not ours */
  }
  return undefined;
}

function asInput<K extends FailureKind>(outcome: Outcome<Record<string, unknown>, K>): Outcome<{ input: Record<string, unknown> }, K> {
  return outcome.ok ? ok({ input: outcome.value }) : outcome;
}
