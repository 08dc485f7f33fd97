// Placeholder bindings used while an area is under construction: every operation answers
// 501 (not a silent 200), and every JSON-RPC method -32004.
import { ApiError } from '../runtime/context.ts';
import type { OperationHandler } from '../runtime/pipeline.ts';
import type { RpcMethodHandler } from '../runtime/jsonrpc.ts';

export function notImplementedHandlers(operationIds: readonly string[]): Record<string, OperationHandler> {
  return Object.fromEntries(
    operationIds.map((id) => [id, async () => {
      throw new ApiError(501, `Operation ${id} is not implemented yet.`);
    }]),
  );
}

export function notImplementedMethods(names: readonly string[]): Record<string, RpcMethodHandler> {
  return Object.fromEntries(names.map((name) => [name, async () => ({ error: { code: -32004, message: `${name} is not implemented yet` } })]));
}
