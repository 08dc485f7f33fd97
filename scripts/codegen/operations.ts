// operations.gen.ts of an OpenAPI document: the operation table the runtime routes by, the
// Request/Response type of every operation (documented response headers included), and
// the Handlers interface with one member per operationId.
import { OpenAPIRouter } from 'openapi-backend';
import { FORM_MEDIA_TYPE, type OperationSpec } from '../../src/runtime/contract.ts';
import { CONTRACT_IMPORT, ident, pascal, writeFile } from './output.ts';
import { deref, typeFor, type Json } from './schemas.ts';

type PartRef = { validator: string; type: string };

/** The schemas an OpenAPI document's operations need, keyed by validator name. */
export interface OperationSchemas {
  operations: OperationSpec[];
  params: Record<string, Json>;
  bodies: Record<string, Json>;
  responses: Record<string, Json>;
  /** Response schemas as the document writes them (component refs local), for the serializers. */
  replies: Record<string, Json>;
  /** Types for operation parts that are not a plain component reference. */
  types: Json;
}

/** The resources and actions of @langchain/langgraph-sdk/auth's `on(...)` events (upstream's names). */
const AUTH_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  threads: ['create', 'read', 'update', 'delete', 'search', 'create_run'],
  assistants: ['create', 'read', 'update', 'delete', 'search'],
  crons: ['create', 'read', 'update', 'delete', 'search'],
  store: ['put', 'get', 'search', 'delete', 'list_namespaces'],
};

/**
 * `x-auth` of an operation under custom auth: `public` (nobody is asked), `authenticated`
 * (the caller is authenticated, no handler is asked), or the `{resource, action}` events whose
 * handlers are asked, one or a list in the order upstream asks them (copying a thread reads
 * the source, then creates the copy). Every REST operation of a document that declares it must
 * say which, so a new operation cannot slip past the project's auth handlers unnoticed.
 */
function authOf(file: string, op: Json): OperationSpec['auth'] {
  const where = `${file}: ${op.operationId}`;
  const auth = op['x-auth'];
  if (auth === undefined) throw new Error(`${where} has no x-auth (public, authenticated or {resource, action}); every operation under custom auth needs one`);
  if (auth === 'public' || auth === 'authenticated') return auth;
  const events: Json[] = Array.isArray(auth) ? auth : [auth];
  const known = (event: Json) => AUTH_ACTIONS[event?.resource]?.includes(event.action) && Object.keys(event).length === 2;
  if (events.length === 0 || !events.every(known)) {
    throw new Error(
      `${where}: x-auth ${JSON.stringify(auth)} is not one of public, authenticated or {resource, action} (or a list of them) with ${JSON.stringify(AUTH_ACTIONS)}`,
    );
  }
  const names = events.map((e) => `${e.resource}:${e.action}`);
  if (new Set(names).size !== names.length) throw new Error(`${where}: x-auth names ${names.join(', ')}; each event once`);
  return events.map((e) => ({ resource: e.resource, action: e.action }));
}

/** `x-agentplane-errors`: the operation answers the failures the runtime finds itself (bad input, auth, limits) in this shape and media type. */
function errorsOf(file: string, id: string, value: Json): OperationSpec['errors'] {
  const keys = Object.keys(value ?? {});
  const invalidReason = value?.invalidReason;
  if (
    value?.shape !== 'google.rpc.Status' ||
    typeof value.mediaType !== 'string' ||
    typeof value.domain !== 'string' ||
    !(invalidReason === undefined || typeof invalidReason === 'string') ||
    keys.length !== (invalidReason === undefined ? 3 : 4)
  )
    throw new Error(
      `${file}: ${id}: x-agentplane-errors must be {shape: google.rpc.Status, mediaType: <type>, domain: <ErrorInfo domain>, invalidReason?: <ErrorInfo reason of invalid input>}, got ${JSON.stringify(value)}`,
    );
  return { shape: value.shape, mediaType: value.mediaType, domain: value.domain, ...(invalidReason === undefined ? {} : { invalidReason }) };
}

export function collectOperations(file: string, doc: Json, absolute: (schema: Json) => Json, options: { customAuth?: boolean } = {}): OperationSchemas {
  const out: OperationSchemas = { operations: [], params: {}, bodies: {}, responses: {}, replies: {}, types: {} };
  // openapi-backend flattens the document into operations (path-level parameters merged,
  // global security applied); the runtime routes by this table, compiled once at start-up.
  const flattened = new OpenAPIRouter({ definition: structuredClone(doc) }).getOperations() as Json[];
  for (const op of flattened) {
    const id: string = op.operationId;
    if (!id) throw new Error(`${file}: ${op.method.toUpperCase()} ${op.path} has no operationId`);
    if (out.operations.some((o) => o.operationId === id)) throw new Error(`duplicate operationId ${id}`);
    const P = pascal(id);
    const rec: OperationSpec = {
      operationId: id,
      method: op.method.toUpperCase(),
      path: op.path,
      summary: op.summary ?? '',
      tags: op.tags ?? [],
      security: op.security,
      params: { headerNames: [], queryNames: [] },
      responses: {},
    };
    if (op['x-agentplane-jsonrpc']) rec.jsonrpc = op['x-agentplane-jsonrpc'];
    if (op['x-agentplane-discovery'] === true) rec.discovery = true;
    if (op['x-agentplane-errors']) rec.errors = errorsOf(file, id, op['x-agentplane-errors']);
    // a JSON-RPC endpoint answers its own callers; custom auth guards the REST operations
    if (options.customAuth && !rec.jsonrpc) rec.auth = authOf(file, op);
    else if (op['x-auth'] !== undefined) throw new Error(`${file}: ${id} has x-auth, which only REST operations under custom auth carry`);
    const params: Json[] = op.parameters.map((x: Json) => deref(doc, x));
    for (const where of ['path', 'query', 'header'] as const) {
      const list = params.filter((x) => x.in === where);
      if (list.length === 0) continue;
      const name = where === 'header' ? 'headers' : where;
      const schema: Json = { type: 'object', properties: {}, required: [] as string[] };
      for (const prm of list) {
        const key = where === 'header' ? prm.name.toLowerCase() : prm.name;
        schema.properties[key] = { ...(prm.schema ?? {}), ...(prm.description ? { description: prm.description } : {}) };
        if (prm.required || where === 'path') schema.required.push(key);
      }
      if (schema.required.length === 0) delete schema.required;
      const validator = ident(`${id}_${name}`);
      out.params[validator] = absolute(schema);
      const type = `${P}${pascal(name)}`;
      out.types[type] = schema;
      rec.params[name as 'path' | 'query' | 'headers'] = { validator, type };
      if (where === 'header') rec.params.headerNames = list.map((x) => x.name.toLowerCase());
      if (where === 'query') rec.params.queryNames = list.map((x) => x.name);
    }
    if (op.requestBody) {
      const rb = deref(doc, op.requestBody);
      const contentTypes = Object.keys(rb.content ?? {});
      const media = rb.content['application/json'] ?? rb.content[contentTypes[0]];
      const validator = ident(`${id}_body`);
      out.bodies[validator] = absolute(media.schema ?? {});
      const type = typeFor(media.schema, `${P}Body`, out.types);
      rec.body = { required: !!rb.required, contentTypes, validator, type };
      // a JSON-RPC envelope is read by its dispatcher, which answers problems in JSON-RPC terms
      if (rec.jsonrpc) rec.body.raw = true;
      // an HTML form's POST (and an OAuth token request): its fields, each a string, checked against the schema
      if (!rb.content['application/json'] && contentTypes.includes(FORM_MEDIA_TYPE)) rec.body.form = true;
    }
    for (const [status, resp0] of Object.entries<Json>(op.responses ?? {})) {
      if (!/^\d{3}$/.test(status)) throw new Error(`${id}: response '${status}' must be a concrete status`);
      const resp = deref(doc, resp0);
      const content = resp.content ?? {};
      // JSON, or a JSON-based media type of its own (application/a2a+json)
      const jsonType = 'application/json' in content ? 'application/json' : Object.keys(content).find((type) => /^application\/[\w.-]+\+json$/.test(type));
      const json = jsonType ? content[jsonType] : undefined;
      const contentType = jsonType ?? Object.keys(content)[0] ?? null;
      const headers = Object.entries<Json>(resp.headers ?? {}).map(([name, h]) => ({ name, required: deref(doc, h)?.required === true }));
      // an operation may answer JSON or, for the same status, a stream (a JSON-RPC endpoint)
      const declared = { ...(headers.length ? { headers } : {}), ...(json && content['text/event-stream'] ? { stream: true } : {}) };
      if (json?.schema) {
        const validator = ident(`${id}_${status}`);
        out.responses[validator] = absolute(json.schema);
        out.replies[validator] = json.schema;
        const type = typeFor(json.schema, `${P}${status}Body`, out.types);
        rec.responses[status] = { contentType, validator, type, ...declared };
      } else rec.responses[status] = { contentType, validator: null, type: null, ...declared };
    }
    out.operations.push(rec);
  }
  return out;
}

/** `headers` of a response type: the documented ones by name (required ones required). */
function headersMember(response: OperationSpec['responses'][string]): string {
  const declared = response.headers ?? [];
  if (declared.length === 0) return 'headers?: Record<string, string>';
  const fields = declared.map((h) => `${JSON.stringify(h.name)}${h.required ? '' : '?'}: string`).join('; ');
  return `headers${declared.some((h) => h.required) ? '' : '?'}: { ${fields} }`;
}

/**
 * operations.gen.ts: the operation table, each operation's request and response types, and the
 * document's components.securitySchemes, which a start binds each operation's credentials by:
 * kept here, beside the table a start reads anyway, so that the document's module (~250-400 KB,
 * ~30 ms and ~950 fresh pages of every start for the two OpenAPI documents) is only loaded by
 * what reads the whole document (the mock, the console, the tests).
 */
/**
 * `JSON.parse` of a list's JSON, one item a line, in a raw template (JSON's escapes kept as they
 * are). A backtick or `${` can only be inside a JSON string, where its \\u escape reads the same.
 */
export function jsonParsed(items: readonly unknown[]): string {
  const text = items.map((item) => JSON.stringify(item).replace(/`/g, '\\u0060').replace(/\$\{/g, '\\u0024{')).join(',\n');
  return `JSON.parse(String.raw\`[\n${text}\n]\`)`;
}

export function writeOperationTable(outDir: string, header: string, typeName: string, operations: OperationSpec[], securitySchemes: Json): void {
  const lines: string[] = [header];
  lines.push(`import type * as T from './types.gen.ts';`);
  const raw = operations.some((o) => o.body?.raw);
  const streams = operations.some((o) => Object.values(o.responses).some((r) => r.contentType === 'text/event-stream' || r.stream));
  lines.push(`import type { OperationSpec${raw ? ', RawBody' : ''}${streams ? ', SseEvent' : ''} } from '${CONTRACT_IMPORT}';\n`);
  // parsed, not a literal: V8 reads JSON text faster than it compiles and runs an object literal
  // this size (the agent server's: ~6 against ~15 ms of a start's main thread, ~150 against ~500
  // fresh pages); one operation a line, so that a diff still says which one changed
  lines.push(`export const operations: readonly OperationSpec[] = ${jsonParsed(operations)};\n`);
  lines.push(`/** The document's components.securitySchemes. */`);
  lines.push(`export const securitySchemes: Record<string, any> = ${JSON.stringify(securitySchemes, null, 2)};\n`);
  for (const o of operations) {
    const P = pascal(o.operationId);
    const part = (r?: PartRef) => (r ? `T.${r.type}` : 'Record<string, never>');
    const bodyType = o.body?.raw ? 'RawBody' : o.body ? `T.${o.body.type}` : 'undefined';
    const body = o.body && !o.body.required && !o.body.raw ? `${bodyType} | undefined` : bodyType;
    lines.push(`/** ${o.method} ${o.path} — ${o.summary.replace(/\*\//g, '')} */`);
    lines.push(
      `export interface ${P}Request {\n  path: ${part(o.params.path)};\n  query: ${part(o.params.query)};\n  headers: ${part(o.params.headers)};\n  body: ${body};\n}`,
    );
    const members = Object.entries(o.responses).flatMap(([status, r]) => {
      const headers = headersMember(r);
      const members: string[] = [];
      if (r.contentType === 'text/event-stream' || r.stream) members.push(`{ status: ${status}; ${headers}; stream: AsyncIterable<SseEvent> }`);
      if (!r.contentType) members.push(`{ status: ${status}; ${headers} }`);
      // text bodies (text/plain) are written as they are, not as JSON
      else if (r.contentType.startsWith('text/') && r.contentType !== 'text/event-stream') members.push(`{ status: ${status}; ${headers}; text: string }`);
      else if (r.contentType !== 'text/event-stream') members.push(`{ status: ${status}; ${headers}; body: ${r.type ? `T.${r.type}` : 'never'} }`);
      return members;
    });
    lines.push(`export type ${P}Response =\n  | ${members.join('\n  | ')};\n`);
  }
  lines.push(`/** One member per operationId: a missing or misspelt handler is a type error. */`);
  lines.push(`export interface ${typeName}Handlers<Ctx> {`);
  for (const o of operations) lines.push(`  ${o.operationId}(request: ${pascal(o.operationId)}Request, ctx: Ctx): Promise<${pascal(o.operationId)}Response>;`);
  lines.push(`}\n`);
  lines.push(`export const handledOperationIds = ${JSON.stringify(operations.map((o) => o.operationId))} as const;`);
  writeFile(outDir, 'operations.gen.ts', lines.join('\n') + '\n');
}
