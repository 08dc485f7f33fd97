// Mock mode: every operation answers from the specification. By default the documented
// success status with the media type's first example (else the schema's, else a value
// openapi-backend builds from the schema). Like Prism, a client picks another documented
// response: `Prefer: code=404`, `Prefer: example=<name>`, `Prefer: dynamic=true` (a value
// generated from the schema), or the query forms `__code`, `__example`, `__dynamic`. Path
// and body values are echoed into the answer where it has the same field, streams replay
// their documented event sequence, and each answer is logged with what was chosen and why.
// Requests are still validated by the pipeline.
import { randomUUID } from 'node:crypto';
import { OpenAPIBackend } from 'openapi-backend';
import { JSONSchemaFaker } from 'json-schema-faker';
import type { OperationSpec, RawBody, RpcOutcome, SseEvent } from '../contract.ts';
import { loadApiDocuments, loadResponseValidators, type ApiDocument } from '../api.ts';
import type { HandlerRegistry, OperationHandler, OperationRequest, Reply } from '../handler.ts';
import type { RequestContext } from '../context.ts';
import { peekId, rpcErrorReply, rpcHttpReply, type JsonRpcDispatcher, type RpcMethodHandler } from '../transports/jsonrpc.ts';
import { SERVED_VERSIONS, negotiate, requestedVersion, type A2AVersion } from '../../shared/a2aVersion.ts';
import { mockProtocolCommands } from './protocolCommands.ts';
import { googleRpcBody } from '../transports/http/googleRpcErrors.ts';

type Json = any;
type Validate = ((value: unknown) => boolean) & { errors?: unknown };

/** One documented response of an operation, with what mock mode can answer from it. */
interface MockResponse {
  status: number;
  contentType?: string;
  headers?: Record<string, string>;
  /** Named examples in document order (an unnamed `example` is called "default"). */
  examples: { name: string; value: unknown }[];
  schema?: Json;
  validate?: Validate;
}

/** What the client asked for (Prefer header, then the query forms, which win). */
export interface MockPreferences {
  code?: number;
  example?: string;
  dynamic?: boolean;
}

export function parsePreferences(prefer: string | undefined, query: Record<string, unknown>): MockPreferences {
  const prefs: MockPreferences = {};
  const set = (key: string, value: string) => {
    if (key === 'code' && /^\d{3}$/.test(value)) prefs.code = Number(value);
    else if (key === 'example' && value) prefs.example = value;
    else if (key === 'dynamic') prefs.dynamic = /^(true|1|yes)$/i.test(value);
  };
  // RFC 7240: comma-separated preferences, each `token[=value]`, values may be quoted
  for (const part of (prefer ?? '').split(/[,;]/)) {
    const m = /^\s*([\w-]+)\s*(?:=\s*"?([^"]*)"?)?\s*$/.exec(part);
    if (m) set(m[1]!.toLowerCase(), m[2] ?? 'true');
  }
  for (const key of ['code', 'example', 'dynamic']) {
    const value = query[`__${key}`];
    if (value !== undefined) set(key, String(value));
  }
  return prefs;
}

JSONSchemaFaker.format('uuid', () => randomUUID());
JSONSchemaFaker.option({ alwaysFakeOptionals: false, useExamplesValue: false, failOnInvalidFormat: false, failOnInvalidTypes: false, maxItems: 3 });
const DYNAMIC_ATTEMPTS = 20;

/**
 * Every operation's example answer; a JSON-RPC operation hands its envelope to the dispatcher of
 * the A2A version the request asks for (the mock methods of that version's document), as real
 * mode does: none is 0.3, `1.0` is v1.0, any other is -32009.
 */
export async function createMockHandlers(documents: ApiDocument[], dispatchers?: Record<A2AVersion, JsonRpcDispatcher>): Promise<HandlerRegistry> {
  const validators = (await loadResponseValidators()).http as Record<string, Validate>;
  // the OpenAPI documents' modules, which a real server's start never loads
  await loadApiDocuments();
  const handlers: Record<string, OperationHandler> = {};
  for (const { document, operations } of documents) {
    const backend = new OpenAPIBackend({ definition: structuredClone(document) as never, quick: true, validate: false });
    await backend.init();
    for (const op of operations) {
      if (op.jsonrpc && dispatchers) {
        handlers[op.operationId] = async (request, ctx) => {
          const { headers, query } = request as { headers: Record<string, string | undefined>; query: Record<string, string | undefined> };
          const requested = requestedVersion(headers['a2a-version'], query['A2A-Version']);
          const version = negotiate(requested);
          if (!version) return rpcHttpReply(rpcErrorReply(peekId(request.body as RawBody), versionNotSupported(requested)));
          return rpcHttpReply(await dispatchers[version].dispatch(request.body as RawBody, ctx));
        };
        continue;
      }
      const responses = documentedResponses(document, op, backend, validators);
      const statuses = [...responses.keys()].sort();
      // an operation whose success is an upgrade (a WebSocket) answers a plain request 426
      const upgrade = op.responses['101'] && responses.has(426) ? 426 : undefined;
      const success = statuses.find((s) => s >= 200 && s < 300) ?? upgrade ?? statuses[0]!;
      const answered = speaksA2AV1(op, async (request, ctx) => answer(document, op, responses, success, request, ctx));
      const documented = checkingOwnCredential(answered, mockCredentialOf(document, op), responses.get(401));
      const protocol = document.paths[op.path][op.method.toLowerCase()]['x-agentplane-protocol-commands'];
      handlers[op.operationId] = protocol
        ? mockProtocolCommands(documented, (ctx, query) => {
            const prefs = parsePreferences(ctx.prefer, query as Record<string, unknown>);
            return prefs.code !== undefined || prefs.example !== undefined || !!prefs.dynamic;
          })
        : documented;
    }
  }
  return handlers;
}

/**
 * An A2A v1.0 HTTP+JSON operation (one answering google.rpc.Status in A2A's domain, that reads
 * A2A-Version) answers only a request that asks for 1.0, as real mode does: any other version,
 * none (0.3) included, is 400 FAILED_PRECONDITION VERSION_NOT_SUPPORTED.
 */
function speaksA2AV1(op: OperationSpec, handler: OperationHandler): OperationHandler {
  if (op.errors?.domain !== 'a2a-protocol.org' || !op.params.headerNames.includes('a2a-version')) return handler;
  const errors = op.errors;
  return async (request, ctx) => {
    const { headers, query } = request as { headers: Record<string, string | undefined>; query: Record<string, string | undefined> };
    const requested = requestedVersion(headers['a2a-version'], query['A2A-Version']);
    if (negotiate(requested) === '1.0') return handler(request, ctx);
    const message = `The requested A2A protocol version '${requested || '0.3'}' is not supported by this binding. Supported versions: 1.0`;
    const info = {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'VERSION_NOT_SUPPORTED',
      domain: errors.domain,
      metadata: { requestedVersion: requested || '0.3' },
    };
    return { status: 400, headers: { 'Content-Type': errors.mediaType }, body: googleRpcBody(400, message, [info], 'FAILED_PRECONDITION') };
  };
}

/** A2A's VersionNotSupportedError (-32009) with its google.rpc.ErrorInfo, as real mode answers it. */
const versionNotSupported = (requested: string) => ({
  code: -32009,
  message: `A2A version '${requested}' is not supported: this endpoint serves ${SERVED_VERSIONS.join(' and ')}.`,
  data: [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'VERSION_NOT_SUPPORTED',
      domain: 'a2a-protocol.org',
      metadata: { requestedVersion: requested, supportedVersions: SERVED_VERSIONS.join(',') },
    },
  ],
});

/**
 * The one credential mock mode accepts for an operation that verifies its own (a listener's
 * token): its scheme's `x-agentplane-mock-credential`, the token the mock's examples hand out.
 */
function mockCredentialOf(document: Json, op: OperationSpec): { header: string; value: string } | undefined {
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, Json>;
  for (const requirement of op.security) {
    for (const name of Object.keys(requirement)) {
      const scheme = schemes[name];
      if (scheme?.['x-agentplane-verified-by'] === 'operation' && typeof scheme['x-agentplane-mock-credential'] === 'string')
        return { header: scheme.name as string, value: scheme['x-agentplane-mock-credential'] as string };
    }
  }
  return undefined;
}

/** Security checked as in real mode: any other credential than the mock's gets the documented 401, never the example. */
function checkingOwnCredential(
  handler: OperationHandler,
  credential: { header: string; value: string } | undefined,
  refused: MockResponse | undefined,
): OperationHandler {
  if (!credential) return handler;
  const detail = (refused?.examples.find((e) => e.name === 'invalid')?.value as { detail?: string } | undefined)?.detail ?? 'Invalid credentials.';
  return async (request, ctx) => {
    if (ctx.credential === credential.value) return handler(request, ctx);
    return { status: 401, headers: { 'WWW-Authenticate': credential.header }, body: { detail } };
  };
}

function documentedResponses(document: Json, op: OperationSpec, backend: OpenAPIBackend, validators: Record<string, Validate>): Map<number, MockResponse> {
  const responses = new Map<number, MockResponse>();
  for (const [status, declared] of Object.entries(op.responses)) {
    // an informational answer (101 Switching Protocols) is the transport's, never a reply
    if (!/^[2-5]\d\d$/.test(status)) continue;
    const raw = resolve(document, document.paths[op.path][op.method.toLowerCase()].responses[status]);
    const response: MockResponse = {
      status: Number(status),
      contentType: declared.contentType ?? undefined,
      headers: mockHeaders(document, raw.headers),
      examples: [],
    };
    const media = declared.contentType ? raw.content?.[declared.contentType] : undefined;
    if (media) {
      if (media.example !== undefined) response.examples.push({ name: 'default', value: media.example });
      for (const [name, example] of Object.entries<Json>(media.examples ?? {})) response.examples.push({ name, value: resolve(document, example)?.value });
      const fromSchema = schemaExample(document, media.schema);
      if (response.examples.length === 0 && fromSchema !== undefined) response.examples.push({ name: 'schema', value: fromSchema });
      if (response.examples.length === 0 && declared.contentType !== 'text/event-stream') {
        response.examples.push({ name: 'generated', value: backend.mockResponseForOperation(op.operationId, { code: Number(status) }).mock });
      }
      response.schema = media.schema && { ...resolve(document, media.schema), components: document.components };
      if (declared.validator) response.validate = validators[declared.validator];
    }
    responses.set(response.status, response);
  }
  return responses;
}

function answer(
  document: Json,
  op: OperationSpec,
  responses: Map<number, MockResponse>,
  success: number,
  request: OperationRequest,
  ctx: RequestContext,
): Reply {
  const prefs = parsePreferences(ctx.prefer, request.query as Record<string, unknown>);
  const why: string[] = [];
  let response = responses.get(success)!;
  if (prefs.code !== undefined) {
    const asked = responses.get(prefs.code);
    if (asked) {
      response = asked;
      why.push(`code=${prefs.code} asked`);
    } else why.push(`code=${prefs.code} is not documented for ${op.operationId} (documented: ${[...responses.keys()].join(', ')}), so the default`);
  } else why.push('the documented success status');

  let chosen: { name: string; value: unknown } | undefined;
  if (prefs.example !== undefined) {
    chosen = response.examples.find((e) => e.name === prefs.example);
    why.push(
      chosen
        ? `example=${prefs.example} asked`
        : `no example "${prefs.example}" for ${response.status} (have: ${response.examples.map((e) => e.name).join(', ') || 'none'}), so the first`,
    );
  }
  if (!chosen && prefs.dynamic && response.schema && response.contentType === 'application/json') {
    const value = generate(response);
    if (value !== undefined) chosen = { name: 'dynamic (generated from the schema)', value };
    else why.push('no generated value met the schema, so the first example');
  }
  chosen ??= response.examples[0];

  const text = chosen ? `${chosen.name === 'dynamic (generated from the schema)' ? chosen.name : `example "${chosen.name}"`}` : 'no body';
  ctx.log.info('mock response', { operation: op.operationId, status: response.status, response: text, why: why.join('; ') });

  const { status, headers } = response;
  if (response.contentType === 'text/event-stream') {
    const events = sseEvents(chosen?.value);
    return { status, headers, stream: replay(events) };
  }
  if (!response.contentType) return { status, headers };
  if (response.contentType.startsWith('text/')) return { status, headers, text: String(chosen?.value ?? '') };
  return { status, headers, body: echo(op, response, structuredClone(chosen?.value), request) };
}

/** A value generated from the response schema that its validator accepts (undefined if none). */
function generate(response: MockResponse): unknown {
  for (let i = 0; i < DYNAMIC_ATTEMPTS; i++) {
    let value: unknown;
    try {
      value = JSONSchemaFaker.generate(response.schema);
    } catch {
      return undefined;
    }
    if (!response.validate || response.validate(value)) return value;
  }
  return undefined;
}

/**
 * Path values, and top-level body values, copied into the answer where it has a field of
 * the same name (`GET /threads/{thread_id}` answers that thread_id); the last path value
 * also fills `id` (`GET /v2/deployments/{deployment_id}`). Kept only if the answer still
 * matches its schema.
 */
function echo(op: OperationSpec, response: MockResponse, body: unknown, request: OperationRequest): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || response.status >= 300) return body;
  const target = body as Record<string, unknown>;
  const echoed = { ...target };
  const pathValues = request.path as Record<string, unknown>;
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  for (const name of names) if (name in echoed && pathValues[name] !== undefined) echoed[name] = pathValues[name];
  const last = names.at(-1);
  if (last && !(last in target) && 'id' in target && pathValues[last] !== undefined) echoed.id = pathValues[last];
  if (request.body && typeof request.body === 'object' && !Array.isArray(request.body)) {
    for (const [key, value] of Object.entries(request.body as Record<string, unknown>)) {
      if (key in echoed && !names.includes(key) && value !== undefined) echoed[key] = value;
    }
  }
  if (response.validate && !response.validate(echoed)) {
    // a request field with the same name but another shape: keep the path values only
    const pathOnly = { ...target };
    for (const name of names) if (name in pathOnly && pathValues[name] !== undefined) pathOnly[name] = pathValues[name];
    if (last && !(last in target) && 'id' in target && pathValues[last] !== undefined) pathOnly.id = pathValues[last];
    return response.validate(pathOnly) ? pathOnly : body;
  }
  return echoed;
}

/** A documented stream: a list of events, or the `text/event-stream` text itself. */
function sseEvents(example: unknown): SseEvent[] {
  if (Array.isArray(example)) return example as SseEvent[];
  if (typeof example !== 'string') return [{ event: 'end', data: null }];
  const events: SseEvent[] = [];
  for (const block of example.split(/\n\n+/)) {
    if (!block.trim()) continue;
    const event: SseEvent = { data: null };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      const at = line.indexOf(':');
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
      else if (field === 'data') data.push(value);
    }
    const text = data.join('\n');
    try {
      event.data = JSON.parse(text);
    } catch {
      event.data = text;
    }
    events.push(event);
  }
  return events;
}

/** Documented response headers, from their examples (a header without one is left out). */
function mockHeaders(document: Json, declared: Json): Record<string, string> | undefined {
  if (!declared) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, h0] of Object.entries(declared)) {
    const h = resolve(document, h0);
    const value = h?.example ?? h?.schema?.example ?? h?.schema?.examples?.[0];
    if (value !== undefined) headers[name] = String(value);
  }
  return Object.keys(headers).length ? headers : undefined;
}

async function* replay(events: SseEvent[]): AsyncGenerator<SseEvent> {
  for (const e of events) yield e;
}

function schemaExample(document: Json, schema: Json): unknown {
  const s = resolve(document, schema);
  if (Array.isArray(s?.examples) && s.examples.length) return s.examples[0];
  if (s?.example !== undefined) return s.example;
  if (s?.type === 'array' && s.items) {
    const item = schemaExample(document, s.items);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}

function resolve(document: Json, node: Json): Json {
  let cur = node;
  while (cur?.$ref) {
    cur = cur.$ref
      .slice(2)
      .split('/')
      .reduce((n: Json, p: string) => n?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return cur;
}

/**
 * JSON-RPC methods answer with the OpenRPC document's example results; a streaming method
 * sends every example's result in order (message/stream: the submitted task, then the final
 * status update).
 */
export function createMockMethods(document: Json): Record<string, RpcMethodHandler> {
  const handlers: Record<string, RpcMethodHandler> = {};
  for (const m0 of document.methods) {
    const m = resolve(document, m0);
    const results = (m.examples ?? []).map((e: Json) => resolve(document, resolve(document, e)?.result)?.value).filter((r: unknown) => r !== undefined);
    if (results.length === 0) results.push(schemaExample(document, resolve(document, m.result).schema));
    handlers[m.name] = m['x-streaming']
      ? async () => ({
          stream: (async function* () {
            for (const result of results) yield { result } as RpcOutcome<unknown>;
          })(),
        })
      : async () => ({ result: results[0] });
  }
  return handlers;
}
