// The contract as the suite sees it: every HTTP operation of both OpenAPI documents and
// every method of the OpenRPC document, read from the bundled documents in generated/,
// with the generated validators that decide what the spec accepts and what it answers.
import type { Validator } from '../../../src/runtime/contract.ts';
import { loadDocument as loadControlPlane } from '../../../generated/control-plane/document.gen.js';
import { loadDocument as loadAgentServer } from '../../../generated/agent-server/document.gen.js';
import { loadDocument as loadA2A } from '../../../generated/a2a/document.gen.js';
import * as cpParams from '../../../generated/control-plane/params.validators.gen.js';
import * as cpBody from '../../../generated/control-plane/body.validators.gen.js';
import * as cpResponse from '../../../generated/control-plane/response.validators.gen.js';
import * as asParams from '../../../generated/agent-server/params.validators.gen.js';
import * as asBody from '../../../generated/agent-server/body.validators.gen.js';
import * as asResponse from '../../../generated/agent-server/response.validators.gen.js';
import * as rpcParams from '../../../generated/a2a/params.validators.gen.js';
import * as rpcResponse from '../../../generated/a2a/response.validators.gen.js';

export type Json = any;
export type DocumentKey = 'control-plane' | 'agent-server';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

const loaders: Record<string, () => Json> = { 'control-plane': loadControlPlane, 'agent-server': loadAgentServer, a2a: loadA2A };
export const readDocument = (key: string): Json => loaders[key]();

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Json;
  example?: unknown;
  examples: unknown[];
  explode: boolean;
}

export interface Link {
  name: string;
  /** Target operationId. */
  operationId: string;
  /** Target parameter name → runtime expression (`$response.body#/id`) or constant. */
  parameters: Record<string, unknown>;
}

export interface ResponseSpec {
  status: string;
  /** Media type → schema; empty when the response has no body. */
  content: Record<string, Json>;
  headers: Record<string, { required: boolean; schema: Json }>;
  links: Link[];
  validator?: Validator;
}

export interface Operation {
  document: DocumentKey;
  doc: Json;
  operationId: string;
  method: string;
  path: string;
  summary?: string;
  raw: Json;
  parameters: Parameter[];
  body?: { required: boolean; mediaTypes: string[]; schema: Json; examples: unknown[] };
  responses: Record<string, ResponseSpec>;
  security: Record<string, string[]>[];
  jsonrpc?: string;
  validators: { path?: Validator; query?: Validator; headers?: Validator; body?: Validator };
}

export interface RpcMethod {
  name: string;
  raw: Json;
  streaming: boolean;
  params: { name: string; required: boolean; schema: Json }[];
  /** The params object as one JSON schema (by-name), for generators. */
  paramsSchema: Json;
  resultSchema: Json;
  errors: { code: number; message: string }[];
  examples: { params: Record<string, unknown>; result?: unknown }[];
  links: Link[];
  validators: { params: Validator; result?: Validator };
}

/**
 * The statuses `op` refuses an invalid request with: 422 and 415 (a body not sent as JSON), or,
 * for an operation whose errors are `google.rpc.Status` bodies (`x-agentplane-errors`, the A2A
 * HTTP+JSON binding), 400 for both, as that binding's specification says.
 */
export function refusalStatuses(op: Operation): { invalid: number; mediaType: number } {
  const errors = (op.raw as { 'x-agentplane-errors'?: { shape?: string } })['x-agentplane-errors'];
  return errors?.shape === 'google.rpc.Status' ? { invalid: 400, mediaType: 400 } : { invalid: 422, mediaType: 415 };
}

export function resolve(doc: Json, node: Json): Json {
  let cur = node;
  const seen = new Set<string>();
  while (cur && typeof cur === 'object' && typeof cur.$ref === 'string') {
    if (seen.has(cur.$ref)) throw new Error(`circular $ref ${cur.$ref}`);
    seen.add(cur.$ref);
    cur = pointer(doc, cur.$ref.slice(1));
  }
  return cur;
}

export function pointer(value: Json, ptr: string): Json {
  if (ptr === '' || ptr === '/') return ptr === '' ? value : value?.[''];
  return ptr
    .split('/')
    .slice(1)
    .reduce((node: Json, part: string) => (node == null ? undefined : node[part.replace(/~1/g, '/').replace(/~0/g, '~')]), value);
}

const table = (m: object) => m as unknown as Record<string, Validator>;
const validatorSets: Record<DocumentKey, { params: Record<string, Validator>; body: Record<string, Validator>; response: Record<string, Validator> }> = {
  'control-plane': { params: table(cpParams), body: table(cpBody), response: table(cpResponse) },
  'agent-server': { params: table(asParams), body: table(asBody), response: table(asResponse) },
};

function readLinks(doc: Json, links: Json): Link[] {
  return Object.entries(links ?? {}).map(([name, l]) => {
    const link = resolve(doc, l);
    return { name, operationId: link.operationId, parameters: { ...(link.parameters ?? {}) } };
  });
}

function readOperations(key: DocumentKey): Operation[] {
  const doc = readDocument(key);
  const v = validatorSets[key];
  const ops: Operation[] = [];
  for (const [path, item0] of Object.entries<Json>(doc.paths)) {
    const item = resolve(doc, item0);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const byKey = new Map<string, Parameter>();
      for (const p0 of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = resolve(doc, p0);
        const schema = p.schema ?? {};
        const examples = [p.example, ...Object.values<Json>(p.examples ?? {}).map((e) => resolve(doc, e)?.value)].filter((e) => e !== undefined);
        byKey.set(`${p.in}:${p.name}`, {
          name: p.name,
          in: p.in,
          required: p.in === 'path' || p.required === true,
          schema,
          example: p.example,
          examples,
          explode: p.explode ?? (p.style ?? 'form') === 'form',
        });
      }
      let body: Operation['body'];
      if (op.requestBody) {
        const rb = resolve(doc, op.requestBody);
        const mediaTypes = Object.keys(rb.content ?? {});
        const media = rb.content[mediaTypes[0]];
        const examples = [media.example, ...Object.values<Json>(media.examples ?? {}).map((e) => resolve(doc, e)?.value)].filter((e) => e !== undefined);
        body = { required: rb.required === true, mediaTypes, schema: media.schema ?? {}, examples };
      }
      const responses: Record<string, ResponseSpec> = {};
      for (const [status, r0] of Object.entries<Json>(op.responses ?? {})) {
        const r = resolve(doc, r0);
        const content: Record<string, Json> = {};
        for (const [mt, media] of Object.entries<Json>(r.content ?? {})) content[mt] = media.schema ?? {};
        const headers: ResponseSpec['headers'] = {};
        for (const [name, h0] of Object.entries<Json>(r.headers ?? {})) {
          const h = resolve(doc, h0);
          headers[name] = { required: h.required === true, schema: h.schema ?? {} };
        }
        responses[status] = { status, content, headers, links: readLinks(doc, r.links), validator: v.response[`${op.operationId}_${status}`] };
      }
      ops.push({
        document: key,
        doc,
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        raw: op,
        parameters: [...byKey.values()],
        body,
        responses,
        security: op.security ?? doc.security ?? [],
        jsonrpc: op['x-agentplane-jsonrpc'],
        validators: {
          path: v.params[`${op.operationId}_path`],
          query: v.params[`${op.operationId}_query`],
          headers: v.params[`${op.operationId}_headers`],
          body: v.body[`${op.operationId}_body`],
        },
      });
    }
  }
  return ops;
}

function readMethods(): { doc: Json; methods: RpcMethod[] } {
  const doc = readDocument('a2a');
  const params = table(rpcParams);
  const results = table(rpcResponse);
  const methods = (doc.methods as Json[]).map((m0) => {
    const m = resolve(doc, m0);
    const ps = (m.params ?? []).map((p0: Json) => {
      const p = resolve(doc, p0);
      return { name: p.name, required: p.required === true, schema: p.schema ?? {} };
    });
    const paramsSchema = {
      type: 'object',
      properties: Object.fromEntries(ps.map((p: Json) => [p.name, p.schema])),
      required: ps.filter((p: Json) => p.required).map((p: Json) => p.name),
      additionalProperties: false,
    };
    const key = m.name.replace(/\//g, '_');
    return {
      name: m.name,
      raw: m,
      streaming: m['x-streaming'] === true,
      params: ps,
      paramsSchema,
      resultSchema: resolve(doc, m.result)?.schema ?? {},
      errors: (m.errors ?? []).map((e: Json) => resolve(doc, e)),
      examples: (m.examples ?? []).map((e0: Json) => {
        const e = resolve(doc, e0);
        return {
          params: Object.fromEntries((e.params ?? []).map((p: Json) => [resolve(doc, p).name, resolve(doc, p).value])),
          result: resolve(doc, e.result)?.value,
        };
      }),
      links: (m.links ?? []).map((l0: Json, i: number) => {
        const l = resolve(doc, l0);
        return { name: l.name ?? `link${i}`, operationId: l.method, parameters: { ...(l.params ?? {}) } };
      }),
      validators: { params: params[key], result: results[key] },
    } satisfies RpcMethod;
  });
  return { doc, methods };
}

export const operations: Operation[] = [...readOperations('control-plane'), ...readOperations('agent-server')];
export const rpc = readMethods();
export const operationById = new Map(operations.map((o) => [o.operationId, o]));

/** A JSON-RPC HTTP operation (the A2A envelope) is fuzzed through its OpenRPC methods. */
export const httpOperations = operations.filter((o) => !o.jsonrpc);
export const rpcOperations = operations.filter((o) => o.jsonrpc);

export const successStatuses = (op: Operation) => Object.keys(op.responses).filter((s) => s.startsWith('2'));
