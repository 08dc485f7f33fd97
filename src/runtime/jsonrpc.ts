// JSON-RPC 2.0 over one HTTP operation. Binds method names to handlers the way the router
// binds operationIds: the envelope is checked here, params against the OpenRPC document's
// generated validators, and every failure is a JSON-RPC error object inside HTTP 200.
import type { MethodSpec, RpcError, RpcOutcome, SseEvent } from '../../generated/runtime-types.gen.ts';
import type { RpcContext } from './context.ts';
import type { ValidatorTable } from './api.ts';
import { RPC, toValidationItems } from './errors.ts';

export type RpcId = string | number | null;
export type RpcMethodHandler = (params: any, ctx: RpcContext) => Promise<RpcOutcome<unknown> | { stream: AsyncIterable<RpcOutcome<unknown>> }>;

export type RpcReply =
  | { kind: 'json'; body: unknown; method?: string }
  | { kind: 'none' }
  | { kind: 'stream'; events: AsyncIterable<SseEvent>; method: string };

export interface DispatcherOptions {
  methods: readonly MethodSpec[];
  params: ValidatorTable;
  handlers: Record<string, RpcMethodHandler>;
  /** Checks each result against the OpenRPC result schema (tests, AGENTPLANE_VALIDATE_RESPONSES). */
  results?: ValidatorTable;
  onResultViolation?: (method: string, issues: unknown) => void;
}

const response = (id: RpcId, outcome: RpcOutcome<unknown>) =>
  'error' in outcome ? { jsonrpc: '2.0', id, error: outcome.error } : { jsonrpc: '2.0', id, result: outcome.result };

// JSON-RPC 2.0: numeric ids "SHOULD NOT contain fractional parts"; the spec (and a2a-js)
// type them as integers, so a fractional id is an invalid request.
const validId = (id: unknown): id is string | number | null =>
  id === null || typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

export class JsonRpcDispatcher {
  private readonly specs: Map<string, MethodSpec>;

  constructor(private readonly options: DispatcherOptions) {
    this.specs = new Map(options.methods.map((m) => [m.name, m]));
  }

  /** Method names the document declares but no handler serves; the server refuses to start on any. */
  missingHandlers(): string[] {
    return [...this.specs.keys()].filter((name) => typeof this.options.handlers[name] !== 'function');
  }

  async dispatch(text: string, ctx: Omit<RpcContext, 'requestId'>): Promise<RpcReply> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return { kind: 'json', body: response(null, { error: RPC.parseError('Parse error: the body is not valid JSON') }) };
    }
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      return { kind: 'json', body: response(null, { error: RPC.invalidRequest('Invalid Request: expected a JSON-RPC 2.0 request object') }) };
    }
    const request = message as Record<string, unknown>;
    const hasId = 'id' in request;
    const id: RpcId = hasId && validId(request.id) ? (request.id as RpcId) : null;
    if (hasId && !validId(request.id)) {
      return { kind: 'json', body: response(null, { error: RPC.invalidRequest('Invalid Request: id must be a string, an integer or null') }) };
    }
    if (request.jsonrpc !== '2.0') {
      return { kind: 'json', body: response(id, { error: RPC.invalidRequest('Invalid Request: jsonrpc must be "2.0"') }) };
    }
    if (typeof request.method !== 'string' || request.method.length === 0) {
      return { kind: 'json', body: response(id, { error: RPC.invalidRequest('Invalid Request: method must be a non-empty string') }) };
    }
    const method = request.method;
    const spec = this.specs.get(method);
    // An unknown method is reported even for a notification: a silent 202 would hide a typo.
    if (!spec) return { kind: 'json', body: response(id, { error: RPC.methodNotFound(method) }), method };
    const params = request.params === undefined ? {} : request.params;
    const invalid = this.checkParams(spec, params);
    if (!hasId) {
      // a notification is carried out all the same; only the reply is withheld
      if (!invalid) void this.runNotification(method, params, { ...ctx, requestId: null });
      return { kind: 'none' };
    }
    if (invalid) return { kind: 'json', body: response(id, { error: invalid }), method };
    const handler = this.options.handlers[method];
    const outcome = await handler(params, { ...ctx, requestId: id });
    if ('stream' in outcome) {
      const check = (o: RpcOutcome<unknown>) => this.check(method, o);
      return { kind: 'stream', method, events: toEvents(id, outcome.stream, check) };
    }
    this.check(method, outcome);
    return { kind: 'json', body: response(id, outcome), method };
  }

  private checkParams(spec: MethodSpec, params: unknown): RpcError | undefined {
    if (!params || typeof params !== 'object' || Array.isArray(params)) return RPC.invalidParams('Invalid params: params must be an object');
    const validate = this.options.params[spec.validator];
    if (validate(params)) return undefined;
    const issues = toValidationItems('params', validate.errors ?? []);
    const summary = issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    return RPC.invalidParams(`Invalid params: ${summary}`, issues);
  }

  private async runNotification(method: string, params: unknown, ctx: RpcContext): Promise<void> {
    try {
      const outcome = await this.options.handlers[method](params, ctx);
      if ('stream' in outcome) for await (const _ of outcome.stream) void _;
    } catch (err) {
      ctx.log.warn('JSON-RPC notification failed', { method, err });
    }
  }

  private check(method: string, outcome: RpcOutcome<unknown>): void {
    const results = this.options.results;
    if (!results || 'error' in outcome) return;
    const validate = results[this.specs.get(method)!.validator];
    if (validate && !validate(outcome.result)) this.options.onResultViolation?.(method, validate.errors);
  }
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
