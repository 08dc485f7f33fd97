// The A2A v1.0 JSON-RPC methods: each calls its v1.0 operation (v1/operations.ts) and writes
// the result, or the A2A error as a JSON-RPC error with google.rpc details (v1/errors.ts).
import type { A2AV1Methods } from '../../../generated/a2a-v1/methods.gen.ts';
import type { RpcError } from '../../runtime/contract.ts';
import { BAD_REQUEST_TYPE, errorDetails, jsonRpcError, a2aError } from './v1/errors.ts';
import { v1Operations, type V1Result, type V1Scope } from './v1/operations.ts';
import type { A2AContext } from './rpc.ts';

type Methods = A2AV1Methods<A2AContext>;

const scopeOf = (ctx: A2AContext): V1Scope => ({
  assistant: ctx.assistant,
  tasks: ctx.tasks,
  push: ctx.push,
  signal: ctx.signal,
  extendedCard: ctx.extendedCard,
});

const answer = <T>(result: V1Result<T>): { result: T } | { error: RpcError } => (result.ok ? { result: result.value } : { error: jsonRpcError(result.error) });

function stream<T>(result: V1Result<AsyncIterable<T>>): { stream: AsyncIterable<{ result: T }> } | { error: RpcError } {
  if (!result.ok) return { error: jsonRpcError(result.error) };
  const events = result.value;
  return {
    stream: (async function* () {
      for await (const event of events) yield { result: event };
    })(),
  };
}

/** -32602 as A2A v1.0 writes it: an ErrorInfo (INVALID_PARAMS) and a google.rpc.BadRequest naming each field. */
export function v1InvalidParams(message: string, issues: { loc: (string | number)[]; msg: string }[]): RpcError {
  const fieldViolations = issues.map((i) => ({ field: i.loc.filter((part) => part !== 'params').join('.'), description: i.msg }));
  const details = errorDetails(a2aError('INVALID_PARAMS', message));
  return { code: -32602, message, data: [...details, { '@type': BAD_REQUEST_TYPE, fieldViolations }] };
}

export function v1Methods(): Methods {
  return {
    async SendMessage(params, ctx) {
      return answer(await v1Operations.sendMessage(scopeOf(ctx), params));
    },
    async SendStreamingMessage(params, ctx) {
      return stream(await v1Operations.sendStreamingMessage(scopeOf(ctx), params));
    },
    async GetTask(params, ctx) {
      return answer(await v1Operations.getTask(scopeOf(ctx), params));
    },
    async ListTasks(params, ctx) {
      return answer(await v1Operations.listTasks(scopeOf(ctx), params));
    },
    async CancelTask(params, ctx) {
      return answer(await v1Operations.cancelTask(scopeOf(ctx), params));
    },
    async SubscribeToTask(params, ctx) {
      return stream(await v1Operations.subscribeToTask(scopeOf(ctx), params));
    },
    async CreateTaskPushNotificationConfig(params, ctx) {
      return answer(await v1Operations.createTaskPushNotificationConfig(scopeOf(ctx), params));
    },
    async GetTaskPushNotificationConfig(params, ctx) {
      return answer(await v1Operations.getTaskPushNotificationConfig(scopeOf(ctx), params));
    },
    async ListTaskPushNotificationConfigs(params, ctx) {
      return answer(await v1Operations.listTaskPushNotificationConfigs(scopeOf(ctx), params));
    },
    async DeleteTaskPushNotificationConfig(params, ctx) {
      return answer(await v1Operations.deleteTaskPushNotificationConfig(scopeOf(ctx), params));
    },
    async GetExtendedAgentCard(_params, ctx) {
      return answer(await v1Operations.getExtendedAgentCard(scopeOf(ctx)));
    },
  };
}
