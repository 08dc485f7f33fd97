// JSON-RPC 2.0 over one HTTP operation. Binds method names to handlers the way the router
// binds operationIds: the envelope is checked here, params against the OpenRPC document's
// generated validators, and every failure is a JSON-RPC error object inside HTTP 200.
// The document served (A2A) defines no notifications, so a request without `id` is answered
// like any other, with `id: null` (as the A2A reference SDKs do): a client that left the id
// out still learns what became of its request.
// The operation's handler hands the raw body to `prepare`, may look at the call (an
// endpoint that addresses something can refuse it), then `run`s it; `rpcHttpReply` turns
// the outcome into the operation's reply.
import type { MethodSpec, RawBody, RpcError, RpcOutcome, SseEvent, ValidatorTable } from '../contract.ts';
import { extendContext, type RpcContext } from '../context.ts';
import { RPC, toValidationItems } from '../errors.ts';
import { unstorableText } from './http/storableText.ts';
import { DEFAULT_MAX_BODY_DEPTH, isJsonContentType, parseJson } from './http/requestBody.ts';

export type RpcId = string | number | null;
export type RpcResponse = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: RpcError };
export type RpcMethodHandler<Ctx extends RpcContext = RpcContext> = {
  // bivariant: each method takes the params its generated validator checked
  handle(params: never, ctx: Ctx): Promise<RpcOutcome<unknown> | { stream: AsyncIterable<RpcOutcome<unknown>> }>;
}['handle'];

export type RpcReply = { kind: 'json'; body: RpcResponse; method?: string } | { kind: 'stream'; events: AsyncIterable<SseEvent>; method: string };

export type MethodRegistry = Readonly<Record<string, RpcMethodHandler<never>>>;

/** Methods typed by a generated Methods interface, as the dispatcher's registry. */
export function methodRegistry<Ctx extends RpcContext, M extends { [K in keyof M]: RpcMethodHandler<Ctx> }>(
  methods: M,
): Readonly<Record<string, RpcMethodHandler<Ctx>>> {
  return methods;
}

/** A request whose envelope and params are valid, ready to run. */
export interface RpcCall {
  method: string;
  params: unknown;
  /** `null` when the request had none. */
  id: RpcId;
}

export interface DispatcherOptions<Ctx extends RpcContext> {
  /** How deeply a request may nest objects and arrays (deeper: -32600, nothing parsed). */
  maxDepth?: number;
  methods: readonly MethodSpec[];
  params: ValidatorTable;
  handlers: Readonly<Record<string, RpcMethodHandler<Ctx>>>;
  /** Checks each result against the OpenRPC result schema (tests, AGENTPLANE_VALIDATE_RESPONSES). */
  results?: ValidatorTable;
  onResultViolation?: (method: string, issues: unknown) => void;
  /** How this document writes invalid params (default: -32602 with the validation items as `data`). */
  invalidParams?: (message: string, issues: ReturnType<typeof toValidationItems>) => RpcError;
  /**
   * A streaming method's error found before its first event is a JSON response rather than
   * the stream's one event (A2A v1.0, as its reference server answers; 0.3 keeps the event).
   */
  streamErrorsAsJson?: boolean;
}

const response = (id: RpcId, outcome: RpcOutcome<unknown>): RpcResponse =>
  'error' in outcome ? { jsonrpc: '2.0', id, error: outcome.error } : { jsonrpc: '2.0', id, result: outcome.result };

// JSON-RPC 2.0: numeric ids "SHOULD NOT contain fractional parts"; the spec (and a2a-js)
// type them as integers, so a fractional id is an invalid request.
const validId = (id: unknown): id is string | number | null => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

export class JsonRpcDispatcher<Ctx extends RpcContext = RpcContext> {
  private readonly specs: Map<string, MethodSpec>;

  constructor(private readonly options: DispatcherOptions<Ctx>) {
    this.specs = new Map(options.methods.map((m) => [m.name, m]));
  }

  /** Reads and checks the envelope and the params: a problem is answered at once, a valid request becomes a call. */
  prepare(body: RawBody): { reply: RpcReply } | { call: RpcCall } {
    const fail = (id: RpcId, error: RpcError, method?: string) => ({ reply: { kind: 'json' as const, body: response(id, { error }), method } });
    if (!isJsonContentType(body.contentType)) {
      return fail(
        null,
        RPC.invalidRequest(`Invalid Request: Content-Type must be application/json (optionally with charset=utf-8), not ${body.contentType ?? 'absent'}`),
      );
    }
    const maxDepth = this.options.maxDepth ?? DEFAULT_MAX_BODY_DEPTH;
    const parsed = parseJson(body.text, maxDepth);
    if ('invalid' in parsed) return fail(null, RPC.parseError('Parse error: the body is not valid JSON'));
    if ('tooDeep' in parsed) {
      return fail(null, RPC.invalidRequest(`Invalid Request: the body nests objects and arrays deeper than ${maxDepth} levels (AGENTPLANE_MAX_BODY_DEPTH)`));
    }
    const message = parsed.value;
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      return fail(null, RPC.invalidRequest('Invalid Request: expected a JSON-RPC 2.0 request object'));
    }
    const request = message as Record<string, unknown>;
    const hasId = 'id' in request;
    if (hasId && !validId(request.id)) return fail(null, RPC.invalidRequest('Invalid Request: id must be a string, an integer or null'));
    const id: RpcId = hasId ? (request.id as RpcId) : null;
    if (request.jsonrpc !== '2.0') return fail(id, RPC.invalidRequest('Invalid Request: jsonrpc must be "2.0"'));
    if (typeof request.method !== 'string' || request.method.length === 0) {
      return fail(id, RPC.invalidRequest('Invalid Request: method must be a non-empty string'));
    }
    const method = request.method;
    const spec = this.specs.get(method);
    if (!spec) return fail(id, RPC.methodNotFound(method), method);
    const params = request.params === undefined ? {} : request.params;
    const invalid = this.checkParams(spec, params);
    if (invalid) return { reply: this.refuse({ method, params, id }, invalid) };
    return { call: { method, params, id } };
  }

  /** Whether a method answers a stream (`x-streaming`): only such a call holds its request open. */
  streams(method: string): boolean {
    return this.specs.get(method)?.streaming === true;
  }

  /** A prepared call refused before it runs, answered as its method answers an early error (a stream's one event, or JSON). */
  refuse(call: RpcCall, error: RpcError): RpcReply {
    // a client reading an event stream would otherwise report the content type, not the error
    if (this.streams(call.method) && !this.options.streamErrorsAsJson) {
      return { kind: 'stream', method: call.method, events: toEvents(call.id, single({ error }), () => undefined) };
    }
    return { kind: 'json', body: response(call.id, { error }), method: call.method };
  }

  /** Runs a prepared call. */
  async run(call: RpcCall, ctx: Omit<Ctx, 'requestId'>): Promise<RpcReply> {
    const context = extendContext(ctx, { requestId: call.id }) as Ctx;
    const outcome = await this.options.handlers[call.method](call.params as never, context);
    if ('stream' in outcome) {
      const check = (o: RpcOutcome<unknown>) => this.check(call.method, o);
      return { kind: 'stream', method: call.method, events: toEvents(call.id, outcome.stream, check) };
    }
    this.check(call.method, outcome);
    return { kind: 'json', body: response(call.id, outcome), method: call.method };
  }

  /** prepare, then run: for endpoints that admit every valid call. */
  async dispatch(body: RawBody, ctx: Omit<Ctx, 'requestId'>): Promise<RpcReply> {
    const prepared = this.prepare(body);
    return 'reply' in prepared ? prepared.reply : this.run(prepared.call, ctx);
  }

  private checkParams(spec: MethodSpec, params: unknown): RpcError | undefined {
    if (!params || typeof params !== 'object' || Array.isArray(params)) return RPC.invalidParams('Invalid params: params must be an object');
    const validate = this.options.params[spec.validator];
    const valid = validate(params);
    const unstorable = valid ? unstorableText(params, ['params']) : undefined;
    if (valid && !unstorable) return undefined;
    const issues = unstorable ? [unstorable] : toValidationItems('params', validate.errors ?? []);
    const summary = issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    return this.options.invalidParams
      ? this.options.invalidParams(`Invalid params: ${summary}`, issues)
      : RPC.invalidParams(`Invalid params: ${summary}`, issues);
  }

  private check(method: string, outcome: RpcOutcome<unknown>): void {
    const results = this.options.results;
    if (!results || 'error' in outcome) return;
    const validate = results[this.specs.get(method)!.validator];
    if (validate && !validate(outcome.result)) this.options.onResultViolation?.(method, validate.errors);
  }
}

/** The request's id when the body is a JSON object with a valid one, else null (for an error answered before dispatch). */
export function peekId(body: RawBody, maxDepth = DEFAULT_MAX_BODY_DEPTH): RpcId {
  const parsed = parseJson(body.text, maxDepth);
  if (!('value' in parsed)) return null;
  const request = parsed.value;
  if (!request || typeof request !== 'object' || Array.isArray(request)) return null;
  const id = (request as Record<string, unknown>).id;
  return validId(id) ? id : null;
}

/** An error reply found before dispatch (a version the endpoint does not serve). */
export const rpcErrorReply = (id: RpcId, error: RpcError): RpcReply => ({ kind: 'json', body: response(id, { error }) });

/** The HTTP reply of a JSON-RPC outcome: 200 with a response or a stream of them. */
export function rpcHttpReply(reply: RpcReply): { status: 200; body: RpcResponse } | { status: 200; stream: AsyncIterable<SseEvent> } {
  if (reply.kind === 'stream') return { status: 200, stream: reply.events };
  return { status: 200, body: reply.body };
}

async function* single<T>(item: T): AsyncGenerator<T> {
  yield item;
}

async function* toEvents(id: RpcId, stream: AsyncIterable<RpcOutcome<unknown>>, check: (o: RpcOutcome<unknown>) => void): AsyncGenerator<SseEvent> {
  try {
    for await (const outcome of stream) {
      check(outcome);
      yield { event: 'message', data: response(id, outcome) };
    }
  } catch (err) {
    // a failure mid-stream still ends with a well-formed JSON-RPC frame
    const error: RpcError = RPC.internal(err instanceof Error ? err.message : 'Internal error');
    yield { event: 'message', data: response(id, { error }) };
  }
}
