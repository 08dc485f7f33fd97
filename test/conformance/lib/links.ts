// The spec's links (OpenAPI `links`, OpenRPC method `links`) say which value of one
// answer names a resource another operation takes. The suite follows them to find
// resources that exist: a pool of parameter bindings per target operation.
import { operationById, operations, pointer, rpc, rpcOperations, type Link, type Operation, type RpcMethod } from './contract.ts';
import { conformanceProblems } from './checks.ts';
import type { Binding } from './generators.ts';
import { curl, describeResponse, requestFor, send, type HttpRequest, type HttpResponse, type Target } from './http.ts';
import { Violation } from './property.ts';
import { rpcProblems } from './rpcProblems.ts';
import { CredentialBook } from './credentials.ts';

export interface Exchange {
  request: HttpRequest;
  response: HttpResponse;
}

/** Evaluates an OpenAPI runtime expression (`$response.body#/id`, `$request.path.x`, ...) or returns a constant. */
export function evaluate(expr: unknown, ex: Exchange): unknown {
  if (typeof expr !== 'string' || !expr.startsWith('$')) return expr;
  const body = (text: string, json: unknown, ptr: string) => pointer(json ?? safeJson(text), ptr);
  let m: RegExpExecArray | null;
  if ((m = /^\$response\.body(?:#(.*))?$/.exec(expr))) return body(ex.response.text, ex.response.json, m[1] ?? '');
  if ((m = /^\$response\.header\.(.+)$/.exec(expr))) return ex.response.headers.get(m[1]) ?? undefined;
  if ((m = /^\$request\.path\.(.+)$/.exec(expr))) return ex.request.path[m[1]];
  if ((m = /^\$request\.query\.(.+)$/.exec(expr))) return ex.request.query[m[1]];
  if ((m = /^\$request\.header\.(.+)$/.exec(expr))) return ex.request.headers[m[1]];
  if ((m = /^\$request\.body(?:#(.*))?$/.exec(expr))) return ex.request.body?.kind === 'json' ? pointer(ex.request.body.value, m[1] ?? '') : undefined;
  if (expr === '$statusCode') return ex.response.status;
  throw new Error(`unsupported runtime expression ${expr}`);
}

/** OpenRPC runtime expressions: `$result.a.b`, `$result#/a/b`, `$params.a.b`; anything else is a constant. */
export function evaluateRpc(expr: unknown, params: unknown, result: unknown): unknown {
  if (typeof expr !== 'string' || !expr.startsWith('$')) return expr;
  const m = /^\$(result|params)(?:#(\/.*)|\.(.+))?$/.exec(expr);
  if (!m) throw new Error(`unsupported runtime expression ${expr}`);
  const root = m[1] === 'result' ? result : params;
  if (m[2] !== undefined) return pointer(root, m[2]);
  if (m[3] === undefined) return root;
  return m[3].split('.').reduce((node: any, key) => (node == null ? undefined : node[key]), root);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `path.thread_id` → `thread_id` (OpenAPI allows qualifying a link parameter by location). */
export const paramName = (key: string) => key.replace(/^(path|query|header|cookie)\./, '');

/** The binding a link yields from an exchange, or null when a value is missing. */
export function bindingOf(link: Link, ex: Exchange): Binding | null {
  const binding: Binding = {};
  for (const [key, expr] of Object.entries(link.parameters)) {
    const value = evaluate(expr, ex);
    if (value === undefined || value === null) return null;
    binding[paramName(key)] = value;
  }
  return binding;
}

export class ResourcePool {
  private readonly byOperation = new Map<string, Binding[]>();
  /**
   * The credentials the answers issued (links binding `header.<name>`), for the operations
   * that check them; pools of one walk share a book, so a credential outlives its pool.
   */
  constructor(readonly credentials = new CredentialBook()) {}

  add(operationId: string, binding: Binding): void {
    const list = this.byOperation.get(operationId) ?? [];
    const key = JSON.stringify(binding);
    if (list.some((b) => JSON.stringify(b) === key)) return;
    list.push(binding);
    if (list.length > 24) list.shift();
    this.byOperation.set(operationId, list);
  }

  get(operationId: string): Binding[] {
    return this.byOperation.get(operationId) ?? [];
  }

  /** Records the bindings an OpenRPC method's links yield from each result it answered. */
  recordRpc(m: RpcMethod, params: unknown, res: HttpResponse): void {
    const frames = res.events ? res.events.map((e) => safeJson(e.data)) : [res.json];
    for (const frame of frames as { result?: unknown }[]) {
      if (!frame || frame.result === undefined) continue;
      for (const link of m.links) {
        const binding: Binding = {};
        for (const [name, expr] of Object.entries(link.parameters)) binding[name] = evaluateRpc(expr, params, frame.result);
        if (Object.values(binding).every((v) => v !== undefined && v !== null)) this.add(link.operationId, binding);
      }
    }
  }

  /** Records every binding the links of this answer yield. */
  record(op: Operation, ex: Exchange): void {
    const spec = op.responses[String(ex.response.status)];
    for (const link of spec?.links ?? []) {
      const b = bindingOf(link, ex);
      if (!b) continue;
      this.add(link.operationId, b);
      for (const key of Object.keys(link.parameters)) if (key.startsWith('header.')) this.credentials.learn(paramName(key), b);
    }
  }
}

/**
 * Creates resources by sending the spec's own request examples to the operations that
 * need no existing resource, then follows links to creating operations (POST with
 * examples) and reads, a few rounds deep. Nothing is deleted.
 */
export async function seedPool(target: Target, rounds = 3): Promise<{ pool: ResourcePool; problems: string[] }> {
  const pool = new ResourcePool();
  // from here on, what the answers issue is sent where it is asked for
  target.ownCredentials = pool.credentials;
  const found: string[] = [];
  // the spec's own examples must conform too; their answers count for coverage
  const checked = async (op: Operation, request: HttpRequest) => {
    const response = await send(target, request);
    const problems = conformanceProblems(op, response);
    if (problems.length)
      found.push(new Violation([`the spec's example for ${op.operationId}:`, ...problems], curl(target, request), describeResponse(response)).message);
    return response;
  };
  const creators = (op: Operation) => op.method === 'GET' || (op.method === 'POST' && op.body?.examples.length);
  for (const op of operations) {
    if (op.jsonrpc || op.parameters.some((p) => p.in === 'path') || !creators(op)) continue;
    for (const body of op.body?.examples.length ? op.body.examples : [undefined]) {
      const request = requestFor(op, { body: body === undefined ? undefined : { kind: 'json', value: body } });
      pool.record(op, { request, response: await checked(op, request) });
    }
  }
  for (let round = 0; round < rounds; round += 1) {
    for (const op of operations) {
      if (op.jsonrpc || !op.parameters.some((p) => p.in === 'path') || !creators(op)) continue;
      for (const binding of pool.get(op.operationId).slice(-2)) {
        const path = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, binding[p.name] ?? p.example]));
        const query = Object.fromEntries(op.parameters.filter((p) => p.in === 'query' && p.name in binding).map((p) => [p.name, binding[p.name]]));
        const body = op.body?.examples[0];
        const request = requestFor(op, { path, query, body: body === undefined ? undefined : { kind: 'json', value: body } });
        pool.record(op, { request, response: await checked(op, request) });
      }
    }
  }
  for (const op of rpcOperations) {
    const known = pool.get(op.operationId)[0] ?? {};
    const path = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, known[p.name] ?? p.example]));
    for (const m of rpc.methods.filter((x) => x.links.length)) {
      for (const [i, example] of m.examples.entries()) {
        const request = requestFor(op, { path, body: { kind: 'json', value: { jsonrpc: '2.0', id: `seed-${i}`, method: m.name, params: example.params } } });
        const response = await send(target, request);
        const problems = rpcProblems(op, m, `seed-${i}`, response);
        if (problems.length)
          found.push(new Violation([`the spec's example for ${m.name}:`, ...problems], curl(target, request), describeResponse(response)).message);
        pool.recordRpc(m, example.params, response);
      }
    }
  }
  return { pool, problems: found };
}

export const linkTarget = (link: Link) => {
  const op = operationById.get(link.operationId);
  if (!op) throw new Error(`link ${link.name} names unknown operationId ${link.operationId}`);
  return op;
};
