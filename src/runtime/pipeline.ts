// One request, start to finish: match → authenticate → read and parse the body → validate
// path, query, headers and body (every problem collected) → handler → optional reply check
// → serialise. The same pipeline serves real and mock mode; only the handlers differ.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationSpec, Validator } from '../../generated/runtime-types.gen.ts';
import type { ApiDocument, ValidatorTable } from './api.ts';
import type { KeyRing } from './auth.ts';
import type { Logger } from './logger.ts';
import type { JsonRpcDispatcher } from './jsonrpc.ts';
import { ApiError, type RequestContext } from './context.ts';
import { RPC, httpError, toValidationItems, validationError, type HttpReply, type ValidationErrorItem } from './errors.ts';
import { Router } from './router.ts';
import { writeSse } from './sse.ts';

export type OperationHandler = (request: { path: any; query: any; headers: any; body: any }, ctx: RequestContext) => Promise<any>;

export interface PipelineOptions {
  documents: ApiDocument[];
  handlers: Record<string, OperationHandler>;
  dispatchers: Record<string, JsonRpcDispatcher>;
  keyRing: KeyRing;
  log: Logger;
  maxBodyBytes: number;
  publicUrl: string | null;
  /** operationIds switched off by configuration: they answer 404 as if absent. */
  disabled?: ReadonlySet<string>;
  /** Require credentials on operations whose security also allows anonymous calls. */
  requireAuthEverywhere: boolean;
  responseValidators?: ValidatorTable;
  /** Extra routes outside the contract (docs, spec files); return true when handled. */
  extra?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  /** The project's own routes (http.app): requests the contract does not route go here. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
  /** Told of every answered request, once its reply has ended (metrics). */
  observe?: (operationId: string, method: string, status: number, seconds: number) => void;
}

interface Bound {
  operation: OperationSpec;
  handler?: OperationHandler;
  params: { path?: Validator; query?: Validator; headers?: Validator };
  body?: Validator;
  /** Anonymous calls allowed (an empty security requirement) unless auth is forced on. */
  anonymous: boolean;
}

const JSON_TYPE = 'application/json';
const JSON_HEADERS = { 'Content-Type': JSON_TYPE };

export function createPipeline(options: PipelineOptions) {
  const router = new Router(options.documents, options.disabled);
  const bound = new Map<string, Bound>();
  for (const doc of options.documents) {
    for (const operation of doc.operations) {
      bound.set(operation.operationId, {
        operation,
        handler: options.handlers[operation.operationId],
        params: {
          path: operation.params.path && doc.params[operation.params.path.validator],
          query: operation.params.query && doc.params[operation.params.query.validator],
          headers: operation.params.headers && doc.params[operation.params.headers.validator],
        },
        body: operation.body && doc.body[operation.body.validator],
        anonymous: operation.security.length === 0 || operation.security.some((r) => Object.keys(r).length === 0),
      });
    }
  }
  const { log } = options;

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q + 1);
    const method = req.method ?? 'GET';
    let operationId: string | undefined;
    if (options.observe) {
      const started = performance.now();
      const observe = options.observe;
      res.once('close', () => observe(operationId ?? 'unmatched', method, res.statusCode, (performance.now() - started) / 1000));
    }
    try {
      if (options.extra?.(req, res, pathname)) return;
      const match = router.match(method === 'HEAD' ? 'GET' : method, pathname);
      if (match.kind === 'not-found') {
        if (options.fallback) {
          operationId = 'custom';
          return await options.fallback(req, res);
        }
        return send(res, httpError(404, 'Not Found'));
      }
      if (match.kind === 'method-not-allowed') {
        return send(res, httpError(405, 'Method Not Allowed', { Allow: match.allow.join(', ') }));
      }
      const b = bound.get(match.operation.operationId)!;
      operationId = b.operation.operationId;
      const identity = options.keyRing.authenticate(req.headers, !b.anonymous || options.requireAuthEverywhere);
      if ('status' in identity) return send(res, identity);
      // an AbortSignal costs more than many a handler: made only for handlers that ask for it
      let abort: AbortController | undefined;
      let gone = false;
      res.once('close', () => {
        if (res.writableFinished) return;
        gone = true;
        abort?.abort();
      });
      const ctx: RequestContext = {
        operationId,
        tenantId: identity.tenantId,
        baseUrl: options.publicUrl ?? `http://${req.headers.host ?? 'localhost'}`,
        get signal() {
          if (!abort) {
            abort = new AbortController();
            if (gone) abort.abort();
          }
          return abort.signal;
        },
        log,
      };

      const raw = hasBody(req) ? await readBody(req, options.maxBodyBytes) : undefined;
      if (raw === TOO_LARGE) {
        return send(res, httpError(413, `Request body is larger than ${options.maxBodyBytes} bytes.`, { Connection: 'close' }));
      }

      if (b.operation.jsonrpc) {
        const type = req.headers['content-type'];
        if (type !== undefined && !JSON_MEDIA.test(type)) {
          return send(res, { status: 200, body: { jsonrpc: '2.0', id: null, error: RPC.invalidRequest('Invalid Request: Content-Type must be application/json') } });
        }
        const dispatcher = options.dispatchers[b.operation.jsonrpc];
        const reply = await dispatcher.dispatch(raw ?? '', { ...ctx, path: match.pathParams });
        if (reply.kind === 'none') return send(res, { status: 202 });
        if (reply.kind === 'stream') return writeSse(res, 200, reply.events);
        return send(res, { status: 200, body: reply.body });
      }

      const issues: ValidationErrorItem[] = [];
      const pathParams = { ...match.pathParams };
      if (b.params.path && !b.params.path(pathParams)) issues.push(...toValidationItems('path', b.params.path.errors ?? []));
      const query = parseQuery(search);
      if (b.params.query && !b.params.query(query)) issues.push(...toValidationItems('query', b.params.query.errors ?? []));
      const headers: Record<string, string> = {};
      for (const name of b.operation.params.headerNames) {
        const v = req.headers[name];
        if (v !== undefined) headers[name] = Array.isArray(v) ? v[0] : v;
      }
      if (b.params.headers && !b.params.headers(headers)) issues.push(...toValidationItems('header', b.params.headers.errors ?? []));
      let body: unknown = undefined;
      if (b.operation.body) {
        const parsed = parseBody(raw, req.headers['content-type'], b.operation.body.required);
        if ('issue' in parsed) issues.push(parsed.issue);
        else {
          body = parsed.value;
          if (body !== undefined && b.body && !b.body(body)) issues.push(...toValidationItems('body', b.body.errors ?? []));
        }
      }
      if (issues.length > 0) return send(res, validationError(issues));
      if (!b.handler) return send(res, httpError(501, `Operation ${operationId} is not implemented.`));

      const reply = await b.handler({ path: pathParams, query, headers, body }, ctx);
      if (options.responseValidators) checkReply(b.operation, reply, options.responseValidators, log);
      if (reply.stream) return writeSse(res, reply.status, reply.stream, reply.headers, (err) => {
        log.error('stream failed', { operationId, err });
        return { event: 'error', data: { error: 'InternalServerError', message: 'The stream failed.' } };
      });
      if (typeof reply.text === 'string') return sendText(res, reply.status, b.operation.responses[String(reply.status)]?.contentType ?? 'text/plain', reply.text, reply.headers, method === 'HEAD');
      return send(res, reply, method === 'HEAD');
    } catch (err) {
      if (err instanceof ApiError) return send(res, httpError(err.status, err.detail, err.headers));
      if (err instanceof ReplyViolation) {
        log.error('reply violates the spec', { operationId, detail: err.message });
        return send(res, httpError(500, `Reply violates the spec: ${err.message}`));
      }
      log.error('unhandled error', { operationId, method, path: pathname, err });
      if (!res.headersSent) return send(res, httpError(500, 'Internal Server Error'));
      res.end();
    }
  };
}

class ReplyViolation extends Error {}

function checkReply(operation: OperationSpec, reply: any, validators: ValidatorTable, log: Logger): void {
  const declared = operation.responses[String(reply.status)];
  if (!declared) throw new ReplyViolation(`${operation.operationId} returned undocumented status ${reply.status}`);
  if (declared.validator && !reply.stream) {
    const validate = validators[declared.validator];
    if (validate && !validate(reply.body)) {
      log.debug('invalid reply body', { body: reply.body });
      throw new ReplyViolation(`${operation.operationId} ${reply.status}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
    }
  }
}

function sendText(res: ServerResponse, status: number, contentType: string, text: string, headers: Record<string, string> | undefined, headOnly: boolean): void {
  res.writeHead(status, { 'Content-Type': `${contentType}; charset=utf-8`, 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(headOnly ? undefined : text);
}

function send(res: ServerResponse, reply: HttpReply, headOnly = false): void {
  if (res.headersSent) return void res.end();
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  const text = serialize(reply.body);
  const length = Buffer.byteLength(text);
  res.writeHead(reply.status, reply.headers ? { ...JSON_HEADERS, 'Content-Length': length, ...reply.headers } : { 'Content-Type': JSON_TYPE, 'Content-Length': length });
  res.end(headOnly ? undefined : text);
}

/**
 * Frozen bodies are immutable views (handlers freeze what they cache per stored record), so
 * their JSON is computed once per version rather than once per request.
 */
const serialized = new WeakMap<object, string>();
function serialize(body: unknown): string {
  if (body === null || typeof body !== 'object' || !Object.isFrozen(body)) return JSON.stringify(body);
  let text = serialized.get(body);
  if (text === undefined) serialized.set(body, (text = JSON.stringify(body)));
  return text;
}

const TOO_LARGE = Symbol('too-large');
const JSON_MEDIA = /^application\/([\w.+-]*\+)?json\b/i;

/** Most requests carry no body; telling so up front spares them an await. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length === undefined) return req.headers['transfer-encoding'] !== undefined;
  return length !== '0';
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared === 0) return Promise.resolve(undefined);
  if (declared > limit) {
    req.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.removeAllListeners('data');
        req.resume();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size === 0 ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string | undefined, contentType: string | undefined, required: boolean): { value: unknown } | { issue: ValidationErrorItem } {
  if (raw === undefined || raw.trim() === '') {
    if (required) return { issue: { loc: ['body'], msg: 'Field required', type: 'missing' } };
    return { value: undefined };
  }
  if (contentType && !JSON_MEDIA.test(contentType)) {
    return { issue: { loc: ['body'], msg: `Unsupported content type ${contentType.split(';')[0]}: send application/json`, type: 'content_type' } };
  }
  try {
    return { value: JSON.parse(raw) };
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    return { issue: { loc: ['body', at ? Number(at[1]) : 0], msg: 'JSON decode error', type: 'json_invalid' } };
  }
}

function parseQuery(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (!search) return query;
  for (const [key, value] of new URLSearchParams(search)) {
    const prev = query[key];
    if (prev === undefined) query[key] = value;
    else query[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}
