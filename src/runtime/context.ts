// What a handler receives besides its typed request: who is calling, how to build links,
// when the client has gone, and where to log. Services (store, queue, deployer) are bound
// into the handlers when they are created, so nothing here is HTTP-specific.
import type { Logger } from './logging/logger.ts';
import type { AuthUser } from './security/customAuth.ts';
import type { SlotRefusal } from './transports/streamSlots.ts';

/** Why a request got no stream slot: the cap that refused it, and what to tell its client. */
export interface StreamSlotRefused {
  refused: SlotRefusal;
  /** The cap's size. */
  limit: number;
  detail: string;
  retryAfterSeconds: number;
}

export interface RequestContext {
  operationId: string;
  /** The tenant the caller acts for (control plane); null for anonymous agent-server calls. */
  tenantId: string | null;
  /** Scheme://host[:port] of this server as the client sees it (or the configured public URL). */
  baseUrl: string;
  /**
   * Scheme://host[:port] the request itself names: its Host, or what a trusted proxy forwarded
   * (origin.ts), whatever public URL is configured. For URLs a page loads from wherever it
   * reached this server (generative UI scripts, as upstream builds them from Host).
   */
  requestOrigin: string;
  /** Aborted when the client disconnects before the reply is complete. */
  signal: AbortSignal;
  log: Logger;
  /** The request's RFC 7240 `Prefer` header, if any (mock mode honours code=, example=, dynamic=). */
  prefer?: string;
  /**
   * The credential of an operation that verifies its own (a listener's token, scheme
   * `x-agentplane-verified-by: operation`): present, not yet checked. Absent elsewhere.
   */
  credential?: string;
  /** Who the project's custom auth (auth.path) says is calling; absent without custom auth. */
  user?: AuthUser;
  /** The request's headers (a run stamps the caller's `x-*` and user-agent on its configurable). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * What the project's auth handlers were shown and may have changed, for an operation without
   * a body of its own (a thread copy's new id and metadata); absent without custom auth.
   */
  authorized?: Readonly<Record<string, unknown>>;
  /**
   * For an operation that streams for some requests only (a JSON-RPC endpoint: its streaming
   * methods stream, the others answer once): takes a stream slot for this request, held until
   * its reply ends, or says why none was given. The pipeline takes none itself for such an
   * operation, so a call answered once never counts as a stream. Absent without caps.
   */
  takeStreamSlot?: () => StreamSlotRefused | undefined;
}

export interface RpcContext extends RequestContext {
  /** The JSON-RPC request id, echoed by the dispatcher. */
  requestId: string | number | null;
}

/**
 * The context with more fields. The HTTP pipeline's context makes `baseUrl`, `requestOrigin` and `signal` on
 * first read (getters on its prototype), which a spread does not copy: they are read here.
 */
export function extendContext<C extends RequestContext, E extends object>(ctx: C, extra: E): C & E {
  return { ...ctx, baseUrl: ctx.baseUrl, requestOrigin: ctx.requestOrigin, signal: ctx.signal, ...extra };
}
