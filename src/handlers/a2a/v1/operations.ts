// The A2A v1.0 operations over the task service, in ProtoJSON request and response shapes:
// what every v1.0 binding calls (JSON-RPC in ../v1Methods.ts; HTTP+JSON and gRPC decode their
// requests to these same objects). A binding only frames: it never sees a domain failure,
// only an A2AError whose kind it writes as its code or status (errors.ts).
import type * as V1 from '../../../../generated/a2a-v1/types.gen.ts';
import type { Assistant } from '../../../../generated/agent-server/types.gen.ts';
import type { Failure, FailureKind } from '../../../domain/outcome.ts';
import type { A2ATaskService } from '../../../domain/a2a/taskService.ts';
import { currentRun, type StartedTask } from '../../../domain/a2a/taskService.ts';
import type { PushConfig, TaskPushConfigs } from '../../../domain/a2a/pushConfigs.ts';
import { a2aError, stringMetadata, type A2AError, type A2AErrorKind } from './errors.ts';
import { closesStream, fromV1Message, fromV1State, toV1StreamResponse, toV1Task } from './wire.ts';

/** What an operation acts on: the endpoint's assistant and the caller's tasks and push configs. */
export interface V1Scope {
  assistant: Assistant;
  tasks: A2ATaskService;
  push: TaskPushConfigs;
  /** Aborted when the caller goes away (a blocking send stops waiting, a stream stops). */
  signal?: AbortSignal;
  /** The caller's extended card of an assistant, when an operator configured one (a2a.extended_card). */
  extendedCard?: (assistant: Assistant) => Promise<V1.AgentCard>;
}

export type V1Result<T> = { ok: true; value: T } | { ok: false; error: A2AError };

const done = <T>(value: T): V1Result<T> => ({ ok: true, value });
const refused = <T>(error: A2AError): V1Result<T> => ({ ok: false, error });

/** A domain failure as the A2A error this operation reports for its kind. */
function mapped<T>(failure: Failure, kinds: Partial<Record<FailureKind, A2AErrorKind>>): V1Result<T> {
  const kind = kinds[failure.kind] ?? (failure.kind === 'invalid' || failure.kind === 'unprocessable' ? 'INVALID_PARAMS' : 'INTERNAL');
  const error = a2aError(kind, failure.detail, stringMetadata(failure.data));
  const field = typeof failure.data?.field === 'string' ? failure.data.field : undefined;
  if (kind === 'INVALID_PARAMS' && field) error.fieldViolations = [{ field, description: failure.detail }];
  return refused(error);
}

const SEND_FAILURES: Partial<Record<FailureKind, A2AErrorKind>> = {
  not_found: 'TASK_NOT_FOUND',
  // a task in a terminal state takes no more messages (§3.1.1)
  conflict: 'UNSUPPORTED_OPERATION',
  unsupported_media: 'CONTENT_TYPE_NOT_SUPPORTED',
  unsupported: 'UNSUPPORTED_OPERATION',
};

/** The v1.0 rules of a message naming a task: no message to an ended task; an interrupted one is resumed. */
const V1_FOLLOW_UPS = { refuseEnded: true, resumeInterrupts: true } as const;

export function toV1PushConfig(config: PushConfig): V1.TaskPushNotificationConfig {
  return {
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    ...(config.token ? { token: config.token } : {}),
    ...(config.authentication ? { authentication: config.authentication } : {}),
  };
}

async function startTask(scope: V1Scope, request: V1.SendMessageParams): Promise<{ failure: Failure } | { started: StartedTask }> {
  const message = fromV1Message(request.message);
  if (!message.ok) return { failure: message.failure };
  const push = request.configuration?.taskPushNotificationConfig;
  if (push) {
    const problem = scope.push.urlProblem(push.url);
    const field = 'configuration.taskPushNotificationConfig.url';
    if (problem) return { failure: { kind: 'invalid', detail: `${field}: ${problem}`, data: { field } } };
  }
  const started = await scope.tasks.start(scope.assistant, { message: message.value }, V1_FOLLOW_UPS);
  if (!started.ok) return { failure: started.failure };
  // registered before anyone waits on the run; a run that ends first still finds it when delivery reads the configs
  if (push)
    await scope.push.set(scope.assistant, started.value.record.id, { url: push.url, id: push.id, token: push.token, authentication: push.authentication });
  return { started: started.value };
}

export const v1Operations = {
  async sendMessage(scope: V1Scope, request: V1.SendMessageParams): Promise<V1Result<V1.SendMessageResponse>> {
    const outcome = await startTask(scope, request);
    if (!('started' in outcome)) return mapped(outcome.failure, SEND_FAILURES);
    const { record, runId, submitted } = outcome.started;
    const historyLength = request.configuration?.historyLength;
    if (request.configuration?.returnImmediately) return done({ task: toV1Task(submitted) });
    await scope.tasks.wait(record, runId, scope.signal);
    return done({ task: toV1Task(await scope.tasks.view(scope.assistant, record, { historyLength })) });
  },

  /** The stream: the task as submitted, then its updates until a terminal or interrupted state. */
  async sendStreamingMessage(scope: V1Scope, request: V1.SendMessageParams): Promise<V1Result<AsyncIterable<V1.StreamResponse>>> {
    const outcome = await startTask(scope, request);
    if (!('started' in outcome)) return mapped(outcome.failure, SEND_FAILURES);
    const { record, runId, submitted } = outcome.started;
    const { tasks, assistant, signal } = scope;
    async function* events(): AsyncGenerator<V1.StreamResponse> {
      yield { task: toV1Task(submitted) };
      for await (const event of tasks.follow(assistant, record, runId, signal)) yield toV1StreamResponse(event);
    }
    return done(events());
  },

  async getTask(scope: V1Scope, request: V1.GetTaskParams): Promise<V1Result<V1.Task>> {
    const found = await scope.tasks.get(scope.assistant, request.id, { historyLength: request.historyLength });
    return found.ok ? done(toV1Task(found.value)) : mapped(found.failure, { not_found: 'TASK_NOT_FOUND' });
  },

  async listTasks(scope: V1Scope, request: V1.ListTasksParams): Promise<V1Result<V1.ListTasksResponse>> {
    const pageSize = request.pageSize ?? 50;
    const page = await scope.tasks.list(scope.assistant, {
      contextId: request.contextId || undefined,
      state: request.status ? fromV1State(request.status) : undefined,
      updatedAfter: request.statusTimestampAfter,
      pageSize,
      pageToken: request.pageToken || undefined,
      historyLength: request.historyLength,
    });
    if (!page.ok) return mapped(page.failure, {});
    const tasks = page.value.tasks.map((task) => toV1Task(task, { artifacts: request.includeArtifacts === true }));
    return done({ tasks, nextPageToken: page.value.nextPageToken, pageSize, totalSize: page.value.totalSize });
  },

  async cancelTask(scope: V1Scope, request: V1.CancelTaskParams): Promise<V1Result<V1.Task>> {
    const canceled = await scope.tasks.cancel(scope.assistant, request.id);
    return canceled.ok ? done(toV1Task(canceled.value)) : mapped(canceled.failure, { not_found: 'TASK_NOT_FOUND', conflict: 'TASK_NOT_CANCELABLE' });
  },

  /** The task as it is, then its updates; a task in a terminal state is UNSUPPORTED_OPERATION (§3.1.6). */
  async subscribeToTask(scope: V1Scope, request: V1.SubscribeToTaskParams): Promise<V1Result<AsyncIterable<V1.StreamResponse>>> {
    const found = await scope.tasks.resubscribe(scope.assistant, request.id);
    if (!found.ok) return mapped(found.failure, { not_found: 'TASK_NOT_FOUND', invalid: 'UNSUPPORTED_OPERATION' });
    const { task, record } = found.value;
    const { tasks, assistant, signal } = scope;
    async function* events(): AsyncGenerator<V1.StreamResponse> {
      const snapshot = toV1Task(task);
      yield { task: snapshot };
      // a task already waiting for the client has nothing to follow: the stream closes at that state (§3.2.2)
      if (closesStream(snapshot.status.state)) return;
      for await (const event of tasks.follow(assistant, record, currentRun(record), signal)) yield toV1StreamResponse(event);
    }
    return done(events());
  },

  async createTaskPushNotificationConfig(scope: V1Scope, request: V1.CreateTaskPushNotificationConfigParams): Promise<V1Result<V1.TaskPushNotificationConfig>> {
    const set = await scope.push.set(scope.assistant, request.taskId, {
      url: request.url,
      id: request.id,
      token: request.token,
      authentication: request.authentication,
    });
    return set.ok ? done(toV1PushConfig(set.value)) : mapped(set.failure, { not_found: 'TASK_NOT_FOUND' });
  },

  async getTaskPushNotificationConfig(scope: V1Scope, request: V1.GetTaskPushNotificationConfigParams): Promise<V1Result<V1.TaskPushNotificationConfig>> {
    const found = await scope.push.get(scope.assistant, request.taskId, request.id);
    return found.ok ? done(toV1PushConfig(found.value)) : mapped(found.failure, { not_found: 'TASK_NOT_FOUND' });
  },

  async listTaskPushNotificationConfigs(
    scope: V1Scope,
    request: V1.ListTaskPushNotificationConfigsParams,
  ): Promise<V1Result<V1.ListTaskPushNotificationConfigsResponse>> {
    const found = await scope.push.list(scope.assistant, request.taskId);
    return found.ok ? done({ configs: found.value.map(toV1PushConfig), nextPageToken: '' }) : mapped(found.failure, { not_found: 'TASK_NOT_FOUND' });
  },

  async deleteTaskPushNotificationConfig(scope: V1Scope, request: V1.DeleteTaskPushNotificationConfigParams): Promise<V1Result<Record<string, never>>> {
    const deleted = await scope.push.delete(scope.assistant, request.taskId, request.id);
    return deleted.ok ? done({}) : mapped(deleted.failure, { not_found: 'TASK_NOT_FOUND' });
  },

  /**
   * The extended card an operator configured (a2a.extended_card). Without one,
   * ExtendedAgentCardNotConfiguredError (-32007, the §5.4 table's answer for it), which says what
   * is missing, where the reference server answers UnsupportedOperationError, which would tell a
   * client the operation does not exist here.
   */
  async getExtendedAgentCard(scope: V1Scope): Promise<V1Result<V1.AgentCard>> {
    if (scope.extendedCard) return done(await scope.extendedCard(scope.assistant));
    return refused(
      a2aError('EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'No extended agent card is configured for this agent (capabilities.extendedAgentCard is false).'),
    );
  },
};

export type V1Operations = typeof v1Operations;
