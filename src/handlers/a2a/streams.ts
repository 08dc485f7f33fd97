// Small helpers for streamed JSON-RPC outcomes.
import type { RpcError, RpcOutcome } from '../../../generated/runtime-types.gen.ts';

/** A stream holding one JSON-RPC error: what a streaming method answers when it cannot start. */
export async function* errorStream(error: RpcError): AsyncGenerator<RpcOutcome<never>> {
  yield { error };
}
