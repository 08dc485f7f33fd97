// A streaming A2A call over the server's stream caps (AGENTPLANE_MAX_STREAMS*), answered as a
// JSON-RPC error, in either version. A2A assigns back-pressure no code: -32000 is the first of
// JSON-RPC's implementation-defined server errors (A2A's own begin at -32001), and the google.rpc
// details say what it is — ErrorInfo (reason RESOURCE_EXHAUSTED, domain agentplane, which cap) and
// RetryInfo (when to ask again), as the gRPC binding's RESOURCE_EXHAUSTED and the HTTP+JSON 429 do.
import type { RpcError } from '../../runtime/contract.ts';
import type { StreamSlotRefused } from '../../runtime/context.ts';
import { ERROR_INFO_TYPE } from './v1/errors.ts';

export const TOO_MANY_STREAMS_CODE = -32000;
export const AGENTPLANE_ERROR_DOMAIN = 'agentplane';
const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

export function tooManyStreamsError(refused: StreamSlotRefused): RpcError {
  return {
    code: TOO_MANY_STREAMS_CODE,
    message: refused.detail,
    data: [
      {
        '@type': ERROR_INFO_TYPE,
        reason: 'RESOURCE_EXHAUSTED',
        domain: AGENTPLANE_ERROR_DOMAIN,
        metadata: {
          limit: String(refused.limit),
          setting: refused.refused === 'client' ? 'AGENTPLANE_MAX_STREAMS_PER_CLIENT' : 'AGENTPLANE_MAX_STREAMS',
        },
      },
      { '@type': RETRY_INFO_TYPE, retryDelay: `${refused.retryAfterSeconds}s` },
    ],
  };
}
