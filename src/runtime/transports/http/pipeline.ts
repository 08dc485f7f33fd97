// One request, start to finish: match → authenticate → read the body (requestBody.ts: its
// size, media type and depth) → validate path, query, headers and body, every problem
// collected (validateRequest.ts) → handler → reply check → write the reply
// (writeReply.ts). The same pipeline serves real and mock mode; only the handlers differ.
// It knows no operation by name.
import { TenantTurns, type LeaveTurn } from './tenantTurns.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiDocument } from '../../api.ts';
import type { ResponseValidators } from './responseValidators.ts';
import type { KeyRing } from '../../security/auth.ts';
import type { RequestContext, StreamSlotRefused } from '../../context.ts';
import type { OperationSpec } from '../../contract.ts';
import { fixedError, httpError, storeErrorReply, validationError, type HttpReply } from '../../errors.ts';
import type { TenantRates } from '../../security/tenantRates.ts';
import { SLOT_RETRY_AFTER_SECONDS, slotRefusalDetail, type SlotRefusal, type StreamSlots } from '../streamSlots.ts';
import type { HandlerRegistry, OperationHandler } from '../../handler.ts';
import type { Logger } from '../../logging/logger.ts';
import type { AccessLine } from '../../logging/accessLine.ts';
import { TOO_LARGE, hasBody, isBlank, isFormContentType, isJsonContentType, readBody, unsupportedMediaType } from './requestBody.ts';
import { asGoogleRpc } from './googleRpcErrors.ts';
import { Router } from './router.ts';
import { requestOrigin } from './origin.ts';
import { validateRequest, validatorsOf, type OperationValidators } from './validateRequest.ts';
import { ReplyViolation, replyViolation, send, writeReply } from './writeReply.ts';
import { ReplySerializers, SerializerMismatch } from './replySerializers.ts';
import type { CorsHandler } from './cors.ts';
import { INNER_REQUEST_ID_HEADER, restoreClientHost, type CustomApp } from '../../project/customRoutes.ts';
import { isRefusal, type CustomAuth } from '../../security/customAuth.ts';
import type { SocketDoor, SocketReply } from '../websocket/socketDoor.ts';
import { StartFailed } from '../../deferredHandlers.ts';
import { releasedAtEnd } from '../releasedAtEnd.ts';
import { endStream } from '../sse.ts';
import { REQUEST_ID_HEADER, RequestIdResponse } from './requestIdResponse.ts';
import { requestIds } from './requestIds.ts';
import { quietAbort } from '../../../shared/quietAbort.ts';

export type { OperationHandler } from '../../handler.ts';

/** A call by another transport, as the HTTP operation it stands for. */
export interface TransportCall {
  operationId: string;
  /** The caller's headers (gRPC metadata), lower-case names. */
  headers: Record<string, string>;
  /** The caller's address: whose stream slots an anonymous call takes. */
  peer: string;
  /** The HTTP path the call stands for (custom auth sees it as the request's URL). */
  path: string;
}

/** An admitted call: its context, what to call when its caller goes, and what to call when it ends (frees its stream slot). */
export type Admission = { ctx: RequestContext; gone(): void; release(): void } | { refused: HttpReply };

/**
 * A request answered, as the metrics and the access log see it. The access line's fields are
 * read off it (the getters below) rather than copied into an object of their own: a second
 * object a request, young garbage, for six values already here.
 */
export class AnsweredRequest implements AccessLine {
  constructor(
    /** The operationId, `custom` for http.app routes, `unmatched` for everything else. */
    readonly operationId: string,
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly seconds: number,
    /** The client's X-Request-Id, or one made for the request; sent back as X-Request-Id. */
    readonly requestId: string,
    /** Whether the request id was made here (requestIds.ts), not the client's. */
    readonly requestIdMade = false,
  ) {}

  /** The access line's milliseconds, to a tenth. */
  get ms(): number {
    return Math.round(this.seconds * 10000) / 10;
  }

  get request_id(): string {
    return this.requestId;
  }

  get operation(): string {
    return this.operationId;
  }
}

export interface PipelineOptions {
  documents: ApiDocument[];
  handlers: HandlerRegistry;
  keyRing: KeyRing;
  log: Logger;
  maxBodyBytes: number;
  /** How deeply a JSON body may nest objects and arrays (deeper: 422 before anything else). */
  maxBodyDepth?: number;
  publicUrl: string | null;
  /** Without a public URL: take the origin from Forwarded / X-Forwarded-* (a trusted proxy), not only Host. */
  trustProxy?: boolean;
  /** operationIds switched off by configuration: they answer 404 as if absent. */
  disabled?: ReadonlySet<string>;
  /** Caps on streaming requests held open, per client and in all; none when absent. */
  streamSlots?: StreamSlots;
  /** Caps on protocol WebSockets held open, per client and in all (their subscriptions take stream slots). */
  socketSlots?: StreamSlots;
  /** Require credentials on operations whose security also allows anonymous calls. */
  requireAuthEverywhere: boolean;
  /**
   * How fast each tenant may call the operations of `documents` (by their key): a tenant over
   * its rate is answered 429 before anything is done. None when absent.
   */
  tenantRates?: { rates: TenantRates; documents: readonly string[] };
  /** The response validators every reply is checked with (loaded before the start when `strictReplies`). */
  responseValidators: ResponseValidators;
  /**
   * A reply that does not fit its schema (or that its serializer would change) answers 500
   * (tests: AGENTPLANE_VALIDATE_RESPONSES); otherwise it is logged with its path and sent.
   */
  strictReplies: boolean;
  /** Extra routes outside the contract (docs, spec files); return true when handled. */
  extra?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  /** The project's custom auth (auth.path), for the operations `customAuthFor` names. */
  customAuth?: CustomAuth;
  customAuthFor?: (operationId: string) => boolean;
  /** CORS headers for every answer, and preflight answered on every path. */
  cors?: CorsHandler;
  /** The project's http.app: its routes answer what the contract does not route; its middleware wraps the API. */
  customApp?: CustomApp;
  /** Told of every request `handle` took, once its response has closed (metrics, the access log, the server's requests in flight). */
  observe?: (request: AnsweredRequest) => void;
  /** The tenants' turns (tenantTurns.ts): a test's, whose turns it gives by hand; a fresh one on the loop's turns when absent. */
  tenantTurns?: TenantTurns;
}

interface Bound {
  operation: OperationSpec;
  handler: OperationHandler;
  /** undefined until the tables it reads have loaded (ApiDocument.whenTables: the control plane's, the agent server's bodies, params and reply serializers per operation). */
  validators: OperationValidators | undefined;
  doc: ApiDocument;
  /** Anonymous calls allowed (an empty security requirement) unless auth is forced on. */
  anonymous: boolean;
  /** No security at all (`security: []`, the liveness probe): anonymous even with auth forced on. */
  public: boolean;
  /** May answer a stream (or, A2A, hold the request for a run): takes a stream slot while it lasts. */
  streams: boolean;
  /** Its callers' tenants are held to their rate (PipelineOptions.tenantRates). */
  rated: boolean;
  /**
   * A JSON-RPC endpoint streams for its streaming methods only: its handler takes the slot
   * (ctx.takeStreamSlot) when the method streams, and answers a refusal as a JSON-RPC error.
   */
  slotPerCall: boolean;
  /**
   * The header of the operation's own credential (a scheme marked `x-agentplane-verified-by:
   * operation`, a listener's token): required here, checked by the operation against the
   * resource it names, never by the key ring. Absent: API keys authenticate.
   */
  ownCredential?: { header: string; name: string };
}

/** The header of the one scheme an operation's security names, when the operation verifies it itself. */
function ownCredentialOf(doc: ApiDocument, operation: OperationSpec): Bound['ownCredential'] {
  const schemes = doc.securitySchemes as Record<string, { type?: string; in?: string; name?: string; 'x-agentplane-verified-by'?: string }>;
  const own = operation.security.map((requirement) => {
    const names = Object.keys(requirement);
    const scheme = names.length === 1 ? schemes[names[0]] : undefined;
    return scheme?.['x-agentplane-verified-by'] === 'operation' && scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name ? scheme.name : undefined;
  });
  if (own.length === 0 || own.some((name) => name === undefined)) return undefined;
  // an operation verifies one credential; several alternatives of its own would need a rule this pipeline does not have
  if (new Set(own).size > 1) throw new Error(`${operation.operationId}: more than one scheme verified by the operation`);
  return { header: own[0]!.toLowerCase(), name: own[0]! };
}

function missingOwnCredential(name: string): HttpReply {
  return httpError(401, `Missing credentials. Send the listener's token in ${name}.`, { 'WWW-Authenticate': name });
}

function tooManyStreams(refused: SlotRefusal, slots: StreamSlots, what = 'streams'): HttpReply {
  return httpError(429, slotRefusalDetail(refused, slots, what), { 'Retry-After': String(SLOT_RETRY_AFTER_SECONDS) });
}

/**
 * A request's context. A class, not an object literal with a getter: V8 gives every literal
 * whose accessor is a fresh closure a hidden class of its own, so a literal per request made
 * (and promoted, and later swept) a hidden class per request — most of the request path's
 * garbage-collection time. The getters below live on the prototype and cost nothing unread.
 */
class HttpRequestContext implements RequestContext {
  user?: RequestContext['user'];
  credential?: string;
  takeStreamSlot: RequestContext['takeStreamSlot'] = undefined;
  readonly prefer: string | undefined;
  readonly headers: IncomingMessage['headers'];
  private origin: string | null;
  // an AbortSignal costs more than many a handler: made only for handlers that ask for it
  private abort: AbortController | undefined;
  private gone = false;

  constructor(
    readonly operationId: string,
    readonly tenantId: string | null,
    req: IncomingMessage,
    readonly log: Logger,
    private readonly publicUrl: string | null,
    private readonly trustProxy: boolean,
  ) {
    this.headers = req.headers;
    this.prefer = typeof req.headers.prefer === 'string' ? req.headers.prefer : undefined;
    this.origin = publicUrl;
  }

  /** The same caller's context for another operation on the same request (a WebSocket's commands). */
  forOperation(operationId: string, req: IncomingMessage): HttpRequestContext {
    const ctx = new HttpRequestContext(operationId, this.tenantId, req, this.log, this.publicUrl, this.trustProxy);
    if (this.user) ctx.user = this.user;
    if (this.credential !== undefined) ctx.credential = this.credential;
    return ctx;
  }

  get baseUrl(): string {
    return (this.origin ??= this.requestOrigin);
  }

  get requestOrigin(): string {
    return requestOrigin(this.headers, this.trustProxy);
  }

  get signal(): AbortSignal {
    if (!this.abort) {
      this.abort = new AbortController();
      if (this.gone) quietAbort(this.abort);
    }
    return this.abort.signal;
  }

  /** The client went away before its reply was complete. */
  clientGone(): void {
    this.gone = true;
    quietAbort(this.abort);
  }
}

/**
 * The path prefixes of the operations that declare an error shape of their own: the segments
 * all of them begin with (the A2A HTTP+JSON binding: /a2a/{assistant_id}/v1), so that an
 * unknown path or method under it is answered in that shape too.
 */
function errorShapedBases(documents: ApiDocument[]): { path: RegExp; errors: NonNullable<OperationSpec['errors']> }[] {
  const shaped = documents.flatMap((doc) => doc.operations.filter((op) => op.errors));
  if (shaped.length === 0) return [];
  let common = shaped[0].path.split('/');
  for (const op of shaped) {
    const segments = op.path.split('/');
    let i = 0;
    while (i < common.length && i < segments.length && common[i] === segments[i]) i += 1;
    common = common.slice(0, i);
  }
  // a prefix of parameters only would take in the paths of every other operation
  if (common.filter((segment) => segment && !segment.startsWith('{')).length < 2) return [];
  const pattern = common.map((segment) => (segment.startsWith('{') ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/');
  return [{ path: new RegExp(`^${pattern}(/|$)`), errors: shaped[0].errors! }];
}

/** Whether a request's Content-Type is one the operation reads: application/json, or a JSON type it declares (application/a2a+json), or a form's where it reads one. */
function acceptsMediaType(operation: OperationSpec, contentType: string | undefined): boolean {
  // a form is read as a form only (a JSON body there is no form a page posted)
  if (operation.body!.form) return isFormContentType(contentType);
  if (isJsonContentType(contentType)) return true;
  const media = contentType?.split(';', 1)[0].trim().toLowerCase();
  // the declared type with the parameters application/json may have (charset=utf-8)
  return (
    !!media &&
    media.endsWith('+json') &&
    operation.body!.contentTypes.includes(media) &&
    isJsonContentType(`application/json${contentType!.slice(contentType!.indexOf(';') < 0 ? contentType!.length : contentType!.indexOf(';'))}`)
  );
}

export function createPipeline(options: PipelineOptions) {
  const router = new Router(options.documents, options.disabled);
  // with strict replies (tests), a serializer that changes a body is an error too
  const serializers = new ReplySerializers(options.documents, options.log, options.strictReplies);
  const bound = new Map<string, Bound>();
  for (const doc of options.documents) {
    for (const operation of doc.operations) {
      const handler = options.handlers[operation.operationId];
      // the server refuses to start with a handler missing; a disabled operation is never routed
      if (!handler) continue;
      const streams = Object.values(operation.responses).some((r) => r.contentType === 'text/event-stream' || r.stream === true);
      bound.set(operation.operationId, {
        operation,
        handler,
        validators: doc.tablesLoaded?.(operation) === false ? undefined : validatorsOf(doc, operation),
        doc,
        anonymous: operation.security.length === 0 || operation.security.some((r) => Object.keys(r).length === 0),
        public: operation.security.length === 0,
        streams,
        slotPerCall: streams && operation.jsonrpc !== undefined,
        rated: options.tenantRates?.documents.includes(doc.key) ?? false,
        ownCredential: ownCredentialOf(doc, operation),
      });
    }
  }
  const { log } = options;
  const errorBases = errorShapedBases(options.documents);

  /** The operation's validators once the tables it reads have loaded (the first request that reads them loads them). */
  async function tablesLoaded(b: Bound): Promise<OperationValidators> {
    await b.doc.whenTables?.(b.operation);
    return (b.validators ??= validatorsOf(b.doc, b.operation));
  }

  /**
   * Who calls `b`, as its security says: the operation's own credential (never the key ring),
   * or an API key, then the project's custom auth. The request's context, or the reply refusing it.
   * A promise only when the project's custom auth is asked: an API key is checked in memory, and
   * an async function's promise and the await on it were a fixed cost of every request.
   */
  function admit(b: Bound, req: IncomingMessage): HttpRequestContext | HttpReply | Promise<HttpRequestContext | HttpReply> {
    const operationId = b.operation.operationId;
    let credential: string | undefined;
    let tenantId: string | null;
    if (b.ownCredential) {
      // never the key ring: an API key is no credential here, whatever else it may do
      const given = req.headers[b.ownCredential.header];
      credential = typeof given === 'string' && given.length > 0 ? given : undefined;
      if (credential === undefined) return missingOwnCredential(b.ownCredential.name);
      tenantId = null;
    } else {
      // agent discovery stays anonymous when auth is forced on: the card tells a client how to authenticate
      const required = !b.public && (!b.anonymous || (options.requireAuthEverywhere && !b.operation.discovery));
      const identity = options.keyRing.authenticate(req.headers, required);
      if ('status' in identity) return identity;
      tenantId = identity.tenantId;
    }
    const ctx = new HttpRequestContext(operationId, tenantId, req, log, options.publicUrl, options.trustProxy === true);
    if (credential !== undefined) ctx.credential = credential;
    if (options.customAuth && options.customAuthFor?.(operationId)) return withUser(options.customAuth, ctx, req);
    return ctx;
  }

  /**
   * The 429 for a call of `b` by a tenant over its rate (agent-server auth on), or null when it
   * may go. The 429 is answered once the tenant may retry (TenantRates.hold), else at once
   * closing its connection.
   */
  function rateRefusal(b: Bound, ctx: RequestContext): Promise<HttpReply> | null {
    if (!b.rated || !ctx.tenantId || !options.requireAuthEverywhere) return null;
    const { rates } = options.tenantRates!;
    const seconds = rates.take(ctx.tenantId);
    if (seconds === 0) return null;
    const after = Math.max(1, Math.ceil(seconds));
    return rates.hold(ctx.tenantId, after).then((held) => rateLimited(rates.perSecond, after, held));
  }

  /** The 429s of a tenant over its rate, one of each kind made once (a flood's refusals are answered without one made each). */
  const rateLimits = new Map<string, HttpReply>();
  function rateLimited(perSecond: number, after: number, held: boolean): HttpReply {
    const kind = `${after}:${held}`;
    let reply = rateLimits.get(kind);
    if (!reply) {
      const detail = `Rate limit: this tenant sends more than ${perSecond} requests a second (AGENTPLANE_MAX_REQUESTS_PER_SECOND); retry after ${after} s.`;
      reply = fixedError(429, detail, held ? { 'Retry-After': String(after) } : { 'Retry-After': String(after), Connection: 'close' });
      // `after` is a few seconds at most: the kinds are few
      if (rateLimits.size < 64) rateLimits.set(kind, reply);
    }
    return reply;
  }

  /** `ctx` with the user the project's custom auth finds, or the reply refusing the request. */
  async function withUser(customAuth: CustomAuth, ctx: HttpRequestContext, req: IncomingMessage): Promise<HttpRequestContext | HttpReply> {
    const user = await customAuth.authenticate(req, ctx.baseUrl);
    if (isRefusal(user)) return httpError(user.status, user.detail, user.headers);
    ctx.user = user;
    return ctx;
  }

  /**
   * Admits a call that arrives by another transport (the A2A gRPC binding) as the HTTP operation
   * it stands for, through the same door (admit: API key, custom auth), switched-off operations
   * answering 404, and its stream slots counted against the tenant, else the caller's own address.
   */
  async function admitCall(call: TransportCall): Promise<Admission> {
    const b = bound.get(call.operationId);
    if (!b || !router.serves(call.operationId)) return { refused: httpError(404, 'Not Found') };
    const req = { headers: call.headers, url: call.path, method: b.operation.method } as unknown as IncomingMessage;
    const ctx = await admit(b, req);
    if (!(ctx instanceof HttpRequestContext)) return { refused: ctx };
    const overRate = rateRefusal(b, ctx);
    if (overRate) return { refused: await overRate };
    let release = () => {};
    if (b.streams && options.streamSlots) {
      const slot = options.streamSlots.take(ctx.tenantId ? `tenant:${ctx.tenantId}` : `peer:${call.peer}`);
      if (typeof slot === 'string') return { refused: tooManyStreams(slot, options.streamSlots) };
      release = slot;
    }
    return { ctx, gone: () => ctx.clientGone(), release };
  }

  const socketDoor: SocketDoor = {
    async admit(req) {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const match = router.match('GET', q < 0 ? url : url.slice(0, q));
      if (match.kind !== 'operation') return httpError(404, 'Not Found');
      const opened = bound.get(match.operation.operationId)!;
      const ctx = await admit(opened, req);
      if (!(ctx instanceof HttpRequestContext)) return ctx;
      const overRate = rateRefusal(opened, ctx);
      if (overRate) return overRate;
      const client = clientOf(ctx, req);
      let release: () => void = () => undefined;
      if (options.socketSlots) {
        // a socket is held open as a stream is: a client's sockets are capped as its streams are, apart from them
        const slot = options.socketSlots.take(client);
        if (typeof slot === 'string') return tooManyStreams(slot, options.socketSlots, 'WebSockets');
        release = slot;
      }
      return {
        client,
        release,
        call: (operationId, body, signal) => callInProcess(bound.get(operationId), req, match.pathParams, ctx, client, body, signal),
      };
    },
  };

  /** An operation called over the socket: validated, capped and answered as over REST, by the same handler. */
  async function callInProcess(
    b: Bound | undefined,
    req: IncomingMessage,
    pathParams: Record<string, string>,
    caller: HttpRequestContext,
    client: string,
    body: unknown,
    signal: AbortSignal,
  ): Promise<SocketReply> {
    // a disabled operation is not bound: not found, as over REST
    if (!b) return { status: 404, json: JSON.stringify({ detail: 'Not Found' }) };
    const validators = b.validators ?? (await tablesLoaded(b));
    const ctx = caller.forOperation(b.operation.operationId, req);
    signal.addEventListener('abort', () => ctx.clientGone(), { once: true });
    let release: (() => void) | undefined;
    try {
      if (b.streams && options.streamSlots) {
        const slot = options.streamSlots.take(client);
        if (typeof slot === 'string') return jsonOf(b, tooManyStreams(slot, options.streamSlots));
        release = slot;
        signal.addEventListener('abort', slot, { once: true });
      }
      const raw = JSON.stringify(body);
      const validated = validateRequest(b.operation, validators, req, { pathParams, search: '', raw, maxDepth: options.maxBodyDepth });
      if ('issues' in validated) return jsonOf(b, validationError(validated.issues));
      const reply = await b.handler(validated.request, ctx);
      if ('stream' in reply) {
        const held = release;
        release = undefined;
        return { status: reply.status, stream: releasedAtEnd(reply.stream, held) };
      }
      return jsonOf(b, { status: reply.status, body: 'body' in reply ? reply.body : 'text' in reply ? { detail: reply.text } : undefined });
    } catch (err) {
      const refused = storeErrorReply(err);
      if (refused) return jsonOf(b, refused);
      log.error('unhandled error', { operationId: b.operation.operationId, transport: 'websocket', err });
      return jsonOf(b, httpError(500, 'Internal Server Error'));
    } finally {
      release?.();
    }
  }

  function jsonOf(b: Bound, reply: HttpReply): SocketReply {
    return { status: reply.status, json: reply.body === undefined ? '{}' : serializers.write(b.operation, reply.status, reply.body) };
  }

  const tenantTurns = options.tenantTurns ?? new TenantTurns();
  const newRequestId = requestIds();
  /** The responses streaming now (Server-Sent Events), for a stop to end. */
  const streams = new Set<ServerResponse>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q + 1);
    const method = req.method ?? 'GET';
    let operationId: string | undefined;
    const observe = options.observe;
    const started = observe ? performance.now() : 0;
    let requestId = '';
    let requestIdMade = false;
    if (observe) {
      const given = (options.customApp?.innerRequest(req) && req.headers[INNER_REQUEST_ID_HEADER]) || req.headers['x-request-id'];
      const own = typeof given === 'string' && given.length > 0 && given.length <= 200;
      requestId = own ? given : newRequestId();
      requestIdMade = !own;
      // sent with the head (requestIdResponse.ts; one made here has nothing in it to check); a
      // response of another kind (in process) has it set now
      if (res instanceof RequestIdResponse) res.sendRequestId(requestId, !own);
      else res.setHeader(REQUEST_ID_HEADER, requestId);
    }
    let ctx: HttpRequestContext | undefined;
    /** Ends the request's hold on its tenant's turns (tenantTurns.ts), once it has one; `closed` once its response has. */
    let leaveTurn: LeaveTurn | undefined;
    let closed = false;
    // one listener per request for everything that waits for its end (a second one cost more
    // than many a handler does). Not `once`: Node's once-wrapper (a bound function and its state
    // made, the listener removed when it fires) for an event a response emits once; `closed`
    // keeps a second 'close', were there one, from counting the request twice.
    res.on('close', () => {
      if (closed) return;
      closed = true;
      if (ctx && !res.writableFinished) ctx.clientGone();
      observe?.(
        new AnsweredRequest(operationId ?? 'unmatched', method, pathname, res.statusCode, (performance.now() - started) / 1000, requestId, requestIdMade),
      );
      leaveTurn?.();
    });
    try {
      if (options.cors?.(req, res)) return;
      if (options.extra?.(req, res, pathname)) return;
      const match = router.match(method === 'HEAD' ? 'GET' : method, pathname);
      const custom = options.customApp;
      // a path under operations that answer in a shape of their own is answered in it, found or not
      const baseErrors = match.kind === 'operation' ? undefined : errorBases.find((base) => base.path.test(pathname))?.errors;
      if (match.kind === 'not-found') {
        if (baseErrors) return send(res, asGoogleRpc(httpError(404, `Not Found: ${method} ${pathname} is no operation of this API`), baseErrors));
        if (custom) {
          operationId = 'custom';
          sendRequestIdNow(res);
          return await custom.routes(req, res);
        }
        return send(res, httpError(404, 'Not Found'));
      }
      if (custom?.around) {
        if (!custom.innerRequest(req)) {
          // the app's middleware first; the API answers the call it passes on (counted there)
          operationId = 'custom';
          sendRequestIdNow(res);
          return await custom.around(req, res);
        }
        restoreClientHost(req);
      }
      if (match.kind === 'method-not-allowed') {
        if (baseErrors)
          return send(
            res,
            asGoogleRpc(httpError(405, `Method Not Allowed: ${pathname} takes ${match.allow.join(', ')}`, { Allow: match.allow.join(', ') }), baseErrors),
          );
        return send(res, httpError(405, 'Method Not Allowed', { Allow: match.allow.join(', ') }));
      }
      const b = bound.get(match.operation.operationId)!;
      operationId = b.operation.operationId;
      // before anything answers for the operation: its replies are written by the document's serializers
      const validators = b.validators ?? (await tablesLoaded(b));
      const errors = b.operation.errors;
      /** A failure found here, in the operation's error shape. */
      const refuse = (reply: HttpReply) => send(res, errors ? asGoogleRpc(reply, errors) : reply);
      const admission = admit(b, req);
      const admitted = admission instanceof Promise ? await admission : admission;
      if (!(admitted instanceof HttpRequestContext)) {
        // a refused caller's connection ends with its answer: kept alive, each key-less client
        // held a descriptor for the keep-alive timeout (65 s), enough of them every descriptor
        res.setHeader('Connection', 'close');
        return refuse(admitted);
      }
      ctx = admitted;
      const overRate = rateRefusal(b, ctx);
      if (overRate) return refuse(await overRate);
      // a tenant's requests beyond a few at once each take a turn of the loop of their own
      // (tenantTurns.ts). Not a public operation's (the health check, a static file): it needs no
      // key and does no tenant's work, so a key sent with it changes nothing — it is answered as a
      // load balancer's probe is, not behind the tenant's queue of requests and run starts and
      // ends (issue 87: the fan-out bench's `/ok`, sent with the key of a tenant holding 20 joins
      // open, waited in that queue, a turn of the loaded loop per piece ahead of it)
      if (ctx.tenantId && !b.public) {
        const entered = tenantTurns.enter(ctx.tenantId);
        leaveTurn = entered instanceof Promise ? await entered : entered;
        // the client went while the request waited its turn: its hold ends now, not never
        if (closed) leaveTurn();
      }
      if (b.slotPerCall && options.streamSlots) ctx.takeStreamSlot = slotTaker(options.streamSlots, clientOf(ctx, req), res);
      else if (b.streams && options.streamSlots) {
        // taken before the handler, so a refused stream has started nothing (no run, no subscription)
        const slot = options.streamSlots.take(clientOf(ctx, req));
        if (typeof slot === 'string') return refuse(tooManyStreams(slot, options.streamSlots));
        heldUntilAnswered(slot, res);
      }

      const raw = hasBody(req) ? await readBody(req, options.maxBodyBytes) : undefined;
      if (raw === TOO_LARGE) {
        return refuse(httpError(413, `Request body is larger than ${options.maxBodyBytes} bytes.`, { Connection: 'close' }));
      }

      // a body is JSON or nothing; the JSON-RPC endpoint answers this itself, as -32600
      if (b.operation.body && !b.operation.body.raw && !isBlank(raw) && !acceptsMediaType(b.operation, req.headers['content-type'])) {
        return refuse(httpError(415, unsupportedMediaType(req.headers['content-type'], b.operation.body.contentTypes)));
      }

      const validated = validateRequest(b.operation, validators, req, { pathParams: match.pathParams, search, raw, maxDepth: options.maxBodyDepth });
      if ('issues' in validated) return refuse(validationError(validated.issues));
      const reply = await b.handler(validated.request, ctx);
      if (options.strictReplies) {
        const violation = replyViolation(b.operation, reply, options.responseValidators.loaded ?? {}, log);
        if (violation) throw new ReplyViolation(violation);
      } else if (options.responseValidators.due(b.operation, reply.status)) {
        // in production the caller still gets its answer; the log says which operation and path broke the contract
        options.responseValidators.check((table) => {
          const violation = replyViolation(b.operation, reply, table, log);
          if (violation)
            log.error('reply does not fit its schema; sent as the schema writes it', {
              operationId,
              method,
              path: pathname,
              status: reply.status,
              detail: violation,
            });
        });
      }
      const streaming = writeReply(res, b.operation, reply, { headOnly: method === 'HEAD', log, serializers });
      if (streaming) {
        // a stream never ends by itself: the server's stop ends it (endStreams)
        streams.add(res);
        try {
          await streaming;
        } finally {
          streams.delete(res);
        }
      }
    } catch (err) {
      if (err instanceof ReplyViolation || err instanceof SerializerMismatch) {
        log.error('reply violates the spec', { operationId, detail: err.message });
        return send(res, httpError(500, `Reply violates the spec: ${err.message}`));
      }
      const refused = storeErrorReply(err);
      if (refused) {
        // the store has logged the cause; nothing of the request was stored
        log.warn('request refused by the store', { operationId, method, path: pathname, status: refused.status });
        if (!res.headersSent) return send(res, refused);
        return void res.end();
      }
      // a start that failed is logged once, by the start; a request that waited for it only hears of it (503, the cause)
      const startFailed = err instanceof StartFailed;
      if (!startFailed) log.error('unhandled error', { operationId, method, path: pathname, err });
      const reply = startFailed ? httpError(503, err.message) : httpError(500, 'Internal Server Error');
      const shape = operationId ? bound.get(operationId)?.operation.errors : undefined;
      if (!res.headersSent) return send(res, shape ? asGoogleRpc(reply, shape) : reply);
      res.end();
    }
  }

  /** Ends every stream being written now, with what was ready (a server stopping: its clients resume from the last event they got). */
  const endStreams = () => {
    for (const res of streams) endStream(res);
  };

  return { handle, socketDoor, admit: admitCall, endStreams };
}

/** The request id as a header before the head is written: the project's http.app reads it from the response (customRoutes.ts). */
function sendRequestIdNow(res: ServerResponse): void {
  if (res instanceof RequestIdResponse) res.setRequestIdNow();
}

/** Whose caps a call counts against: its tenant, else the address it came from (never this server's own). */
function clientOf(ctx: RequestContext, req: IncomingMessage): string {
  return ctx.tenantId ? `tenant:${ctx.tenantId}` : `peer:${req.socket.remoteAddress}`;
}

/** The slot given back once the reply is sent: 'finish' (the last byte handed to the OS, before the client can ask again) or 'close' (gone early). */
function heldUntilAnswered(release: () => void, res: ServerResponse): void {
  res.once('finish', release);
  res.once('close', release);
}

/** A request's ctx.takeStreamSlot: one slot at most, held until the reply is sent. */
function slotTaker(slots: StreamSlots, client: string, res: ServerResponse): () => StreamSlotRefused | undefined {
  let taken = false;
  return () => {
    if (taken) return undefined;
    const slot = slots.take(client);
    if (typeof slot === 'string') {
      const limit = slot === 'client' ? slots.maxPerClient : slots.maxTotal;
      return { refused: slot, limit, detail: slotRefusalDetail(slot, slots), retryAfterSeconds: SLOT_RETRY_AFTER_SECONDS };
    }
    taken = true;
    heldUntilAnswered(slot, res);
    return undefined;
  };
}
