// Mock mode: every operation answers from the specification — the documented success
// status with the media type's example, else the schema's first example, else a value
// openapi-backend generates from the schema. Requests are still validated by the pipeline.
import { OpenAPIBackend } from 'openapi-backend';
import type { OperationSpec, RawBody, RpcOutcome, SseEvent } from '../contract.ts';
import type { ApiDocument } from '../api.ts';
import type { HandlerRegistry, OperationHandler, Reply } from '../handler.ts';
import { rpcHttpReply, type JsonRpcDispatcher, type RpcMethodHandler } from '../jsonrpc.ts';

type Json = any;
/** A documented reply; a stream's events are replayed afresh for each request. */
type MockReply = Exclude<Reply, { stream: unknown }> | { status: number; headers?: Record<string, string>; events: SseEvent[] };

/** Every operation's example answer; a JSON-RPC operation hands its envelope to `dispatcher` (mock methods). */
export async function createMockHandlers(documents: ApiDocument[], dispatcher?: JsonRpcDispatcher): Promise<HandlerRegistry> {
  const handlers: Record<string, OperationHandler> = {};
  for (const { document, operations } of documents) {
    const backend = new OpenAPIBackend({ definition: structuredClone(document) as never, quick: true, validate: false });
    await backend.init();
    for (const op of operations) {
      if (op.jsonrpc && dispatcher) {
        handlers[op.operationId] = async (request, ctx) => rpcHttpReply(await dispatcher.dispatch(request.body as RawBody, ctx));
        continue;
      }
      const reply = mockReply(document, op, backend);
      handlers[op.operationId] = async () => ('events' in reply ? { status: reply.status, headers: reply.headers, stream: replay(reply.events) } : reply);
    }
  }
  return handlers;
}

function mockReply(document: Json, op: OperationSpec, backend: OpenAPIBackend): MockReply {
  const statuses = Object.keys(op.responses).sort();
  const status = statuses.find((s) => s.startsWith('2')) ?? statuses[0];
  const declared = op.responses[status];
  const raw = resolve(document, document.paths[op.path][op.method.toLowerCase()].responses[status]);
  const headers = mockHeaders(document, raw.headers);
  if (declared.contentType === 'text/event-stream') {
    const media = raw.content['text/event-stream'];
    const events = media?.example ?? firstExample(media?.examples);
    return { status: Number(status), headers, events: Array.isArray(events) ? events : [{ event: 'end', data: null }] };
  }
  if (!declared.contentType) return { status: Number(status), headers };
  const media = raw.content[declared.contentType];
  let body = media.example ?? firstExample(media.examples);
  if (body === undefined) body = schemaExample(document, media.schema);
  if (body === undefined) body = backend.mockResponseForOperation(op.operationId, { code: Number(status) }).mock;
  if (declared.contentType.startsWith('text/')) return { status: Number(status), headers, text: String(body) };
  return { status: Number(status), headers, body };
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

function firstExample(examples: Json): unknown {
  if (!examples || typeof examples !== 'object') return undefined;
  const first = Object.values(examples)[0] as Json;
  return first?.value;
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

/** JSON-RPC methods answer with the OpenRPC document's example results. */
export function createMockMethods(document: Json): Record<string, RpcMethodHandler> {
  const handlers: Record<string, RpcMethodHandler> = {};
  for (const m0 of document.methods) {
    const m = resolve(document, m0);
    const example = resolve(document, m.examples?.[0]);
    const result = resolve(document, example?.result)?.value ?? schemaExample(document, resolve(document, m.result).schema);
    const outcome: RpcOutcome<unknown> = { result };
    handlers[m.name] = m['x-streaming']
      ? async () => ({ stream: (async function* () { yield outcome; })() })
      : async () => outcome;
  }
  return handlers;
}
