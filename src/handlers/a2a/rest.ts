// The A2A v1.0 HTTP+JSON/REST binding (the a2aRest* operations of agent-server.openapi.yaml,
// under /a2a/{assistant_id}/v1): each operation gathers its v1.0 request from the path, the
// query and the body, and answers what the v1.0 operation of the same name answers — ProtoJSON
// in application/a2a+json, a Server-Sent Events stream of StreamResponses, or a
// google.rpc.Status with the A2A error's HTTP status (v1Binding.ts).
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { SseEvent, ValidatorTable } from '../../runtime/contract.ts';
import type { RequestContext } from '../../runtime/context.ts';
import { googleRpcBody } from '../../runtime/transports/http/googleRpcErrors.ts';
import { callV1, statusOf, versionProblem, type BindingError, type V1Door, type V1Item, type V1Method } from './v1Binding.ts';

type Handlers = AgentServerHandlers<RequestContext>;
export type RestOperationId = Extract<keyof Handlers, `a2aRest${string}`>;

const MEDIA_TYPE = 'application/a2a+json';
const HEADERS = { 'Content-Type': MEDIA_TYPE };

type Dict = Record<string, unknown>;

/** What every REST request carries: the assistant in the path, the version in a header or the query. */
interface RestRequest {
  path: { assistant_id: string; id?: string; configId?: string };
  query: Dict;
  headers: Dict;
  body?: unknown;
}

/** The fields of the query that are the operation's request (the version is the binding's, not the operation's). */
function requestQuery(query: Dict): Dict {
  const { 'A2A-Version': _version, ...rest } = query;
  return rest;
}

/** A body's fields (an optional body may be absent); `tenant` routes on the gRPC binding and is no field of the operation here. */
function bodyFields(body: unknown): Dict {
  if (!body || typeof body !== 'object') return {};
  const { tenant: _tenant, ...rest } = body as Dict;
  return rest;
}

/** Each REST operation: the v1.0 method it runs, its request from the HTTP request, and its success status. */
const ROUTES: Record<RestOperationId, { method: V1Method; request: (r: RestRequest) => Dict; status?: 200 | 201 | 204 }> = {
  a2aRestSendMessage: { method: 'SendMessage', request: (r) => bodyFields(r.body) },
  a2aRestSendStreamingMessage: { method: 'SendStreamingMessage', request: (r) => bodyFields(r.body) },
  a2aRestListTasks: { method: 'ListTasks', request: (r) => requestQuery(r.query) },
  a2aRestGetTask: { method: 'GetTask', request: (r) => ({ ...requestQuery(r.query), id: r.path.id }) },
  a2aRestCancelTask: {
    method: 'CancelTask',
    request: (r) => {
      const { metadata } = bodyFields(r.body);
      return { id: r.path.id, ...(metadata === undefined ? {} : { metadata }) };
    },
  },
  a2aRestSubscribeToTask: { method: 'SubscribeToTask', request: (r) => ({ id: r.path.id }) },
  a2aRestSubscribeToTaskGet: { method: 'SubscribeToTask', request: (r) => ({ id: r.path.id }) },
  a2aRestCreateTaskPushNotificationConfig: {
    method: 'CreateTaskPushNotificationConfig',
    request: (r) => ({ ...bodyFields(r.body), taskId: r.path.id }),
    status: 201,
  },
  a2aRestGetTaskPushNotificationConfig: { method: 'GetTaskPushNotificationConfig', request: (r) => ({ taskId: r.path.id, id: r.path.configId }) },
  a2aRestListTaskPushNotificationConfigs: { method: 'ListTaskPushNotificationConfigs', request: (r) => ({ ...requestQuery(r.query), taskId: r.path.id }) },
  a2aRestDeleteTaskPushNotificationConfig: {
    method: 'DeleteTaskPushNotificationConfig',
    request: (r) => ({ taskId: r.path.id, id: r.path.configId }),
    status: 204,
  },
  a2aRestGetExtendedAgentCard: { method: 'GetExtendedAgentCard', request: () => ({}) },
};

function failed(error: BindingError) {
  const status = statusOf(error);
  return { status: status.httpStatus as 400, headers: HEADERS, body: googleRpcBody(status.httpStatus, status.message, status.details, status.code) as never };
}

async function* sse(stream: AsyncIterable<V1Item>): AsyncGenerator<SseEvent> {
  for await (const item of stream) {
    if ('error' in item) {
      // after the first event a failure is a frame of its own, as the A2A JS SDK's server sends it
      const status = statusOf(item.error);
      yield { event: 'error', data: googleRpcBody(status.httpStatus, status.message, status.details, status.code) };
      return;
    }
    yield { data: item.result };
  }
}

export function restHandlers(door: V1Door, params: ValidatorTable): Pick<Handlers, RestOperationId> {
  const handler = (id: RestOperationId) => {
    const route = ROUTES[id];
    return async (request: RestRequest, ctx: RequestContext) => {
      const version = versionProblem(request.headers['a2a-version'] as string | undefined, request.query['A2A-Version'] as string | undefined);
      if (version) return failed(version);
      const answer = await callV1(door, params, route.method, route.request(request), ctx, request.path.assistant_id);
      if ('error' in answer) return failed(answer.error);
      if ('stream' in answer) return { status: 200 as const, stream: sse(answer.stream) };
      if (route.status === 204) return { status: 204 as const };
      return { status: route.status ?? 200, headers: HEADERS, body: answer.result as never };
    };
  };
  const handlers = {} as Record<RestOperationId, unknown>;
  for (const id of Object.keys(ROUTES) as RestOperationId[]) handlers[id] = handler(id);
  return handlers as Pick<Handlers, RestOperationId>;
}
