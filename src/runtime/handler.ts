// The boundary between the runtime and the handlers: what a handler receives (a request the
// pipeline has validated against its operation's schemas) and what it returns (a reply:
// JSON, text, a stream of events, or nothing). The generated Handlers interfaces narrow
// both per operation; the registry below accepts exactly those.
import type { SseEvent } from './contract.ts';
import type { RequestContext } from './context.ts';

export type ReplyHeaders = Readonly<Record<string, string>>;

export interface JsonReply {
  status: number;
  headers?: ReplyHeaders;
  body: unknown;
}
export interface TextReply {
  status: number;
  headers?: ReplyHeaders;
  /** Written as it is, with the media type the operation documents for this status. */
  text: string;
}
export interface StreamReply {
  status: number;
  headers?: ReplyHeaders;
  stream: AsyncIterable<SseEvent>;
}
export interface EmptyReply {
  status: number;
  headers?: ReplyHeaders;
}
export type Reply = JsonReply | TextReply | StreamReply | EmptyReply;

/**
 * A request after validation: path, query and headers coerced, the body parsed (or raw).
 * Each operation's generated `XRequest` type says what its parts hold.
 */
export interface OperationRequest {
  path: object;
  query: object;
  headers: object;
  body: unknown;
}

/**
 * A handler as the pipeline calls it. Declared as a method so that a handler typed for its
 * own operation's request (the generated `XRequest`) fits: the pipeline only calls it with
 * a request its generated validators accepted.
 */
export type OperationHandler = { handle(request: OperationRequest, ctx: RequestContext): Promise<Reply> }['handle'];

export type HandlerRegistry = Record<string, OperationHandler>;

/** Handlers typed by the generated interfaces, as the runtime's registry (replies are checked by the compiler). */
export function handlerRegistry<H extends { [K in keyof H]: OperationHandler }>(handlers: H): HandlerRegistry {
  return handlers;
}
