// Domain failures as A2A JSON-RPC errors: the one kind → code table of this area (A2A 0.3.0
// error catalogue), and the helpers that answer with it.
import type { RpcError, RpcOutcome } from '../../runtime/contract.ts';
import type { Failure, FailureKind } from '../../domain/outcome.ts';

const CODE = {
  invalid: -32602, // InvalidParams: the message or ids do not fit this task or assistant
  unprocessable: -32602, // InvalidParams as well: one param's value
  not_found: -32001, // TaskNotFoundError
  conflict: -32002, // TaskNotCancelableError: the task's state forbids the change
  busy: -32002, // likewise: the task's context is working on something else
  unsupported: -32003, // PushNotificationNotSupportedError: the one optional A2A feature not offered
  unsupported_media: -32005, // ContentTypeNotSupportedError
  // no A2A method fails these ways (the transport authenticates before a method runs)
  unauthenticated: -32600, // InvalidRequest
  rate_limited: -32600, // InvalidRequest
  quota_exceeded: -32600, // InvalidRequest
} as const satisfies Record<FailureKind, number>;

export function rpcError(failure: Failure): RpcError {
  return { code: CODE[failure.kind], message: failure.detail, ...(failure.data === undefined ? {} : { data: failure.data }) };
}

/** A method's answer for a failed outcome. */
export const rpcFailed = (failure: Failure): { error: RpcError } => ({ error: rpcError(failure) });

/** A stream holding one JSON-RPC error: what a streaming method answers when it cannot start. */
export async function* failedStream(failure: Failure): AsyncGenerator<RpcOutcome<never>> {
  yield rpcFailed(failure);
}
