// The A2A v1.0 gRPC binding: the methods of lf.a2a.v1.A2AService (spec/a2a.proto). One gRPC
// port serves every assistant, so a call names its assistant in the request's `tenant` (the
// card's gRPC interface sets it; none: the default assistant). Each call is admitted by the
// HTTP pipeline's door as the HTTP+JSON operation it stands for — the same API keys, custom
// auth, switched-off operations and stream slots — then runs the same v1.0 operation.
import type { GrpcAnswer, GrpcError, GrpcMethod } from '../../runtime/transports/grpc/grpcServer.ts';
import type { GrpcApplication } from '../../runtime/application.ts';
import type { ValidatorTable } from '../../runtime/contract.ts';
import { statusName } from '../../runtime/transports/http/googleRpcErrors.ts';
import { packagePath } from '../../runtime/packageRoot.ts';
import { callV1, statusOf, versionProblem, type BindingError, type V1Door, type V1Item, type V1Method } from './v1Binding.ts';
import type { RestOperationId } from './rest.ts';

export const A2A_PROTO = packagePath('spec', 'a2a.proto');
export const A2A_SERVICE = 'lf.a2a.v1.A2AService';

/** Each method: the HTTP+JSON operation it is admitted as, and that operation's path (what custom auth sees as the URL). */
const METHODS: Record<V1Method, { operationId: RestOperationId; path: (request: Record<string, unknown>) => string }> = {
  SendMessage: { operationId: 'a2aRestSendMessage', path: () => '/message:send' },
  SendStreamingMessage: { operationId: 'a2aRestSendStreamingMessage', path: () => '/message:stream' },
  GetTask: { operationId: 'a2aRestGetTask', path: (r) => `/tasks/${segment(r.id)}` },
  ListTasks: { operationId: 'a2aRestListTasks', path: () => '/tasks' },
  CancelTask: { operationId: 'a2aRestCancelTask', path: (r) => `/tasks/${segment(r.id)}:cancel` },
  SubscribeToTask: { operationId: 'a2aRestSubscribeToTask', path: (r) => `/tasks/${segment(r.id)}:subscribe` },
  CreateTaskPushNotificationConfig: {
    operationId: 'a2aRestCreateTaskPushNotificationConfig',
    path: (r) => `/tasks/${segment(r.taskId)}/pushNotificationConfigs`,
  },
  GetTaskPushNotificationConfig: {
    operationId: 'a2aRestGetTaskPushNotificationConfig',
    path: (r) => `/tasks/${segment(r.taskId)}/pushNotificationConfigs/${segment(r.id)}`,
  },
  ListTaskPushNotificationConfigs: {
    operationId: 'a2aRestListTaskPushNotificationConfigs',
    path: (r) => `/tasks/${segment(r.taskId)}/pushNotificationConfigs`,
  },
  DeleteTaskPushNotificationConfig: {
    operationId: 'a2aRestDeleteTaskPushNotificationConfig',
    path: (r) => `/tasks/${segment(r.taskId)}/pushNotificationConfigs/${segment(r.id)}`,
  },
  GetExtendedAgentCard: { operationId: 'a2aRestGetExtendedAgentCard', path: () => '/extendedAgentCard' },
};

const segment = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : '');

function grpcError(error: BindingError): GrpcError {
  const status = statusOf(error);
  return { code: status.code, message: status.message, details: status.details };
}

async function* grpcItems(stream: AsyncIterable<V1Item>, done: () => void): AsyncGenerator<GrpcAnswer> {
  try {
    for await (const item of stream) yield 'error' in item ? { error: grpcError(item.error) } : item;
  } finally {
    done();
  }
}

/** The gRPC service of the A2A area; `defaultAssistant` answers calls without a tenant. */
export function a2aGrpc(door: V1Door, params: ValidatorTable, defaultAssistant: () => string | undefined): GrpcApplication {
  return {
    protoFile: A2A_PROTO,
    service: A2A_SERVICE,
    methods(admit) {
      const method =
        (name: V1Method): GrpcMethod =>
        async (call) => {
          const { tenant, ...request } = call.request;
          const assistantId = typeof tenant === 'string' && tenant !== '' ? tenant : defaultAssistant();
          const route = METHODS[name];
          const admission = await admit({
            operationId: route.operationId,
            headers: call.headers,
            peer: call.peer,
            path: `/a2a/${segment(assistantId)}/v1${route.path(request)}`,
          });
          if ('refused' in admission) {
            const { status, body } = admission.refused;
            const detail = (body as { detail?: unknown } | undefined)?.detail;
            return { error: { code: statusName(status) as GrpcError['code'], message: typeof detail === 'string' ? detail : `HTTP ${status}` } };
          }
          const { ctx, gone, release } = admission;
          call.signal.addEventListener('abort', gone, { once: true });
          let streaming = false;
          try {
            const version = versionProblem(call.headers['a2a-version'], undefined);
            if (version) return { error: grpcError(version) };
            if (!assistantId)
              return { error: { code: 'NOT_FOUND', message: 'No tenant named and no default assistant: set the tenant to an assistant id or graph name.' } };
            const answer = await callV1(door, params, name, request, ctx, assistantId);
            if ('error' in answer) return { error: grpcError(answer.error) };
            if ('stream' in answer) {
              streaming = true;
              return { stream: grpcItems(answer.stream, release) };
            }
            return answer;
          } finally {
            if (!streaming) release();
          }
        };
      const methods = {} as Record<V1Method, GrpcMethod>;
      for (const name of Object.keys(METHODS) as V1Method[]) methods[name] = method(name);
      return methods;
    },
  };
}
