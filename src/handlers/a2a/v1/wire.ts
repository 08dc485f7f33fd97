// A2A v1.0 wire shapes (ProtoJSON: camelCase, enums by name, no `kind`) of the task service's
// tasks, messages, parts and stream events, and back. One mapping for every v1.0 binding
// (JSON-RPC here; HTTP+JSON and gRPC decode to the same ProtoJSON objects first). Pure
// functions: the version only picks wire shapes, the task service never sees them.
import type * as V1 from '../../../../generated/a2a-v1/types.gen.ts';
import type { Artifact, Message, Part, StreamEventResult, Task, TaskState, TaskStatus } from '../../../../generated/a2a/types.gen.ts';
import { fail, ok, type Outcome } from '../../../domain/outcome.ts';

const STATE_TO_V1: Record<TaskState, V1.TaskState> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

const STATE_FROM_V1 = new Map<V1.TaskState, TaskState>(Object.entries(STATE_TO_V1).map(([k, v]) => [v, k as TaskState]));

export const toV1State = (state: TaskState): V1.TaskState => STATE_TO_V1[state];

/** The task state a v1.0 enum name names (TASK_STATE_UNSPECIFIED: none). */
export const fromV1State = (state: V1.TaskState): TaskState | undefined => (state === 'TASK_STATE_UNSPECIFIED' ? undefined : STATE_FROM_V1.get(state));

/** v1.0 states after which a stream closes: terminal, or waiting for the client (§3.2.2). */
export const closesStream = (state: V1.TaskState): boolean =>
  ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'].includes(
    state,
  );

export function toV1Part(part: Part): V1.Part {
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  switch (part.kind) {
    case 'text':
      return { text: part.text, ...metadata };
    case 'data':
      return { data: part.data, mediaType: 'application/json', ...metadata };
    case 'file': {
      const file = part.file as { bytes?: string; uri?: string; name?: string; mimeType?: string };
      return {
        ...(file.bytes !== undefined ? { raw: file.bytes } : { url: file.uri }),
        ...(file.name ? { filename: file.name } : {}),
        ...(file.mimeType ? { mediaType: file.mimeType } : {}),
        ...metadata,
      };
    }
  }
}

const CONTENT = ['text', 'raw', 'url', 'data'] as const;

/**
 * A v1.0 part as the task service's part. Exactly one of text, raw, url, data (the proto's
 * oneof); raw and url become file parts.
 * A data part may hold any JSON value (google.protobuf.Value), e.g. a list answering an interrupt.
 */
export function fromV1Part(part: V1.Part, field: string): Outcome<Part, 'invalid'> {
  const present = CONTENT.filter((key) => part[key] !== undefined);
  if (present.length !== 1) {
    return fail('invalid', `${field}: a part holds exactly one of text, raw, url or data (found ${present.length ? present.join(', ') : 'none'})`, {
      field,
    });
  }
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  const file = { ...(part.filename ? { name: part.filename } : {}), ...(part.mediaType ? { mimeType: part.mediaType } : {}) };
  switch (present[0]) {
    case 'text':
      return ok({ kind: 'text', text: part.text!, ...metadata });
    case 'raw':
      return ok({ kind: 'file', file: { bytes: part.raw!, ...file }, ...metadata });
    case 'url':
      return ok({ kind: 'file', file: { uri: part.url!, ...file }, ...metadata });
    default:
      return ok({ kind: 'data', data: part.data as Record<string, unknown>, ...metadata });
  }
}

export function toV1Message(message: Message): V1.Message {
  return {
    messageId: message.messageId,
    ...(message.contextId !== undefined ? { contextId: message.contextId } : {}),
    ...(message.taskId !== undefined ? { taskId: message.taskId } : {}),
    role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: message.parts.map(toV1Part) as V1.Message['parts'],
    ...(message.metadata ? { metadata: message.metadata } : {}),
    ...(message.extensions ? { extensions: message.extensions } : {}),
    ...(message.referenceTaskIds ? { referenceTaskIds: message.referenceTaskIds } : {}),
  };
}

/** A v1.0 message as the task service's; an unspecified role or an ill-formed part is invalid. */
export function fromV1Message(message: V1.Message, field = 'message'): Outcome<Message, 'invalid'> {
  if (message.role !== 'ROLE_USER' && message.role !== 'ROLE_AGENT') {
    return fail('invalid', `${field}.role: must be ROLE_USER or ROLE_AGENT`, { field: `${field}.role` });
  }
  const parts: Part[] = [];
  for (const [index, part] of message.parts.entries()) {
    const converted = fromV1Part(part, `${field}.parts[${index}]`);
    if (!converted.ok) return converted;
    parts.push(converted.value);
  }
  // the proto's empty string is an absent id (ProtoJSON writes defaults out only by choice)
  return ok({
    kind: 'message',
    messageId: message.messageId,
    role: message.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: parts as Message['parts'],
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.metadata ? { metadata: message.metadata } : {}),
    ...(message.extensions ? { extensions: message.extensions } : {}),
    ...(message.referenceTaskIds ? { referenceTaskIds: message.referenceTaskIds } : {}),
  });
}

export function toV1Status(status: TaskStatus): V1.TaskStatus {
  return {
    state: toV1State(status.state),
    ...(status.message ? { message: toV1Message(status.message) } : {}),
    ...(status.timestamp ? { timestamp: utcTimestamp(status.timestamp) } : {}),
  };
}

export function toV1Artifact(artifact: Artifact): V1.Artifact {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name ? { name: artifact.name } : {}),
    ...(artifact.description ? { description: artifact.description } : {}),
    parts: artifact.parts.map(toV1Part),
    ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
    ...(artifact.extensions ? { extensions: artifact.extensions } : {}),
  };
}

export interface TaskShape {
  /** Leave the artifacts out (ListTasks without includeArtifacts: the field is absent, §3.1.4). */
  artifacts?: boolean;
}

export function toV1Task(task: Task, shape: TaskShape = {}): V1.Task {
  return {
    id: task.id,
    contextId: task.contextId,
    status: toV1Status(task.status),
    ...(shape.artifacts !== false && task.artifacts ? { artifacts: task.artifacts.map(toV1Artifact) } : {}),
    // historyLength 0 leaves the field out (§3.2.4)
    ...(task.history && task.history.length > 0 ? { history: task.history.map(toV1Message) } : {}),
    ...(task.metadata ? { metadata: task.metadata } : {}),
  };
}

/** One stream event of the task service as a v1.0 StreamResponse (no `kind`, no `final`). */
export function toV1StreamResponse(event: StreamEventResult): V1.StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: toV1Task(event) };
    case 'message':
      return { message: toV1Message(event) };
    case 'status-update':
      return {
        statusUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          status: toV1Status(event.status),
          ...(event.metadata ? { metadata: event.metadata } : {}),
        },
      };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: toV1Artifact(event.artifact),
          ...(event.append !== undefined ? { append: event.append } : {}),
          ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
          ...(event.metadata ? { metadata: event.metadata } : {}),
        },
      };
  }
}

/** ISO 8601 in UTC with a `Z` (§5.6.1): the agent server's timestamps may carry `+00:00`. */
export function utcTimestamp(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}
