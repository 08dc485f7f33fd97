// What the HTTP+JSON and gRPC bindings of A2A v1.0 share: the request's version, the
// assistant it addresses, the params checked against a2a-v1.openrpc.json (the very validators
// of the JSON-RPC methods), and the v1.0 operation of the same name run on the task service.
// A binding only frames what comes back: a ProtoJSON result, a stream of them, or an A2AError.
import type { RequestContext } from '../../runtime/context.ts';
import { toValidationItems } from '../../runtime/errors.ts';
import { unstorableText } from '../../runtime/transports/http/storableText.ts';
import type { ValidatorTable } from '../../runtime/contract.ts';
import { methods as v1Methods } from '../../../generated/a2a-v1/methods.gen.ts';
import { negotiate, requestedVersion } from '../../shared/a2aVersion.ts';
import { a2aError, errorDetails, GRPC_STATUS, HTTP_STATUS, type A2AError } from './v1/errors.ts';
import { v1Operations, type V1Scope } from './v1/operations.ts';
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';

type GrpcCode = (typeof GRPC_STATUS)[keyof typeof GRPC_STATUS];

/** The v1.0 operations by their proto method names. */
export type V1Method = (typeof v1Methods)[number]['name'];

/** An A2A error, or the binding's own: the path or tenant names no assistant of this caller (its endpoint does not exist). */
export type BindingError = A2AError | { kind: 'UNKNOWN_ASSISTANT'; message: string };

export type V1Item = { result: unknown } | { error: BindingError };
export type V1Answer = V1Item | { stream: AsyncIterable<V1Item> };

/** How a binding reaches the task service for one caller: the assistant an id names, and the scope of a v1.0 operation on it. */
export interface V1Door {
  assistant(ctx: RequestContext, id: string): Promise<Assistant | undefined>;
  scope(ctx: RequestContext, assistant: Assistant): V1Scope;
}

const OPERATION: Record<V1Method, keyof typeof v1Operations> = {
  SendMessage: 'sendMessage',
  SendStreamingMessage: 'sendStreamingMessage',
  GetTask: 'getTask',
  ListTasks: 'listTasks',
  CancelTask: 'cancelTask',
  SubscribeToTask: 'subscribeToTask',
  CreateTaskPushNotificationConfig: 'createTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'getTaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfigs',
  DeleteTaskPushNotificationConfig: 'deleteTaskPushNotificationConfig',
  GetExtendedAgentCard: 'getExtendedAgentCard',
};

const STREAMING = new Set<V1Method>(['SendStreamingMessage', 'SubscribeToTask']);

/** VersionNotSupportedError unless the request speaks 1.0: these bindings declare 1.0 only (a request naming none speaks 0.3). */
export function versionProblem(header: string | undefined, query: string | undefined): A2AError | undefined {
  const asked = requestedVersion(header, query);
  if (negotiate(asked) === '1.0') return undefined;
  return a2aError('VERSION_NOT_SUPPORTED', `The requested A2A protocol version '${asked || '0.3'}' is not supported by this binding. Supported versions: 1.0`, {
    requestedVersion: asked || '0.3',
  });
}

/** Runs a v1.0 operation for the caller: params checked as the JSON-RPC method's, then the operation on the assistant. */
export async function callV1(
  door: V1Door,
  params: ValidatorTable,
  method: V1Method,
  request: Record<string, unknown>,
  ctx: RequestContext,
  assistantId: string,
): Promise<V1Answer> {
  const assistant = await door.assistant(ctx, assistantId);
  if (!assistant) return { error: { kind: 'UNKNOWN_ASSISTANT', message: `Assistant '${assistantId}' not found` } };
  const spec = v1Methods.find((m) => m.name === method)!;
  const validate = params[spec.validator];
  const valid = validate(request);
  const unstorable = valid ? unstorableText(request, ['params']) : undefined;
  if (!valid || unstorable) {
    const items = unstorable ? [unstorable] : toValidationItems('params', validate.errors ?? []);
    const fieldViolations = items.map((item) => ({ field: item.loc.slice(1).join('.') || 'params', description: item.msg }));
    const error = a2aError('INVALID_PARAMS', `Invalid params: ${fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ')}`);
    error.fieldViolations = fieldViolations;
    return { error };
  }
  const scope = door.scope(ctx, assistant);
  const operation = v1Operations[OPERATION[method]] as (
    scope: V1Scope,
    request: unknown,
  ) => Promise<{ ok: true; value: unknown } | { ok: false; error: A2AError }>;
  const outcome = await operation(scope, request);
  if (!outcome.ok) return { error: outcome.error };
  if (!STREAMING.has(method)) return { result: outcome.value };
  return { stream: items(outcome.value as AsyncIterable<unknown>) };
}

async function* items(stream: AsyncIterable<unknown>): AsyncGenerator<V1Item> {
  try {
    for await (const event of stream) yield { result: event };
  } catch (err) {
    // a failure mid-stream still ends the stream with an error the client can read
    yield { error: a2aError('INTERNAL', err instanceof Error ? err.message : 'The stream failed.') };
  }
}

/** An error as a google.rpc.Status: the HTTP status, the code name, the message and the details. */
export function statusOf(error: BindingError): { httpStatus: number; code: GrpcCode; message: string; details: Record<string, unknown>[] } {
  if (error.kind === 'UNKNOWN_ASSISTANT') return { httpStatus: 404, code: 'NOT_FOUND', message: error.message, details: [] };
  return { httpStatus: HTTP_STATUS[error.kind], code: GRPC_STATUS[error.kind], message: error.message, details: errorDetails(error) };
}
