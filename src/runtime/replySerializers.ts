// JSON replies written from the operation's documented response schema (fast-json-stringify):
// faster than JSON.stringify for the shapes the spec fixes, and a field the spec does not
// declare for an object with declared properties never reaches a client (a second line of
// defence for secrets). One serializer per operation and status, compiled from the bundled
// document the first time that reply is written (compiling them all would cost seconds of
// start-up). Objects the spec leaves open (no `properties`) are written whole.
import { isDeepStrictEqual } from 'node:util';
import fastJson from 'fast-json-stringify';
import type { ApiDocument } from './api.ts';
import type { OperationSpec } from './contract.ts';
import type { Logger } from './logger.ts';

export type Serialize = (body: unknown) => string;

const DEFS = 'agentplane-components';
/** Keywords whose value maps names to schemas. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

/** The schema as fast-json-stringify reads it: component refs into one shared schema, examples gone, open objects kept open. */
function forSerializer(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forSerializer);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (NAMED_SCHEMAS.has(key) && value && typeof value === 'object') {
      // its keys are names (a property may well be called `examples`), each naming a schema
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, forSerializer(schema)]));
      continue;
    }
    if (key === 'example' || key === 'examples') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out[key] = `${DEFS}#/definitions/${value.slice('#/components/schemas/'.length)}`;
    } else out[key] = forSerializer(value);
  }
  const types = Array.isArray(out.type) ? out.type : [out.type];
  // JSON Schema leaves an object without `properties` open; fast-json-stringify would write it as {}
  if (types.includes('object') && out.properties === undefined && out.additionalProperties === undefined && out.patternProperties === undefined) {
    out.additionalProperties = true;
  }
  return out;
}

function responseSchema(document: Record<string, any>, operation: OperationSpec, status: string): unknown {
  let response = document.paths?.[operation.path]?.[operation.method.toLowerCase()]?.responses?.[status];
  while (response?.$ref) response = document.components?.responses?.[String(response.$ref).split('/').pop()!];
  return response?.content?.['application/json']?.schema;
}

export class ReplySerializers {
  private readonly compiled = new Map<string, Serialize | null>();
  private readonly writers = new Map<OperationSpec, Map<number, Serialize>>();
  private readonly external = new Map<ApiDocument, Record<string, unknown>>();
  private readonly documentOf = new Map<string, ApiDocument>();

  constructor(
    documents: readonly ApiDocument[],
    private readonly log: Logger,
    /** Tests: a serializer whose output differs from the body in any way is reported, not hidden. */
    private readonly strict = false,
  ) {
    for (const doc of documents) for (const op of doc.operations) this.documentOf.set(op.operationId, doc);
  }

  /** The serializer of one documented JSON reply; null when the reply has no JSON schema (JSON.stringify then). */
  for(operation: OperationSpec, status: number): Serialize | null {
    const key = `${operation.operationId} ${status}`;
    let serialize = this.compiled.get(key);
    if (serialize === undefined) {
      serialize = this.compile(operation, String(status));
      this.compiled.set(key, serialize);
    }
    return serialize;
  }

  /** One stable writer per operation and status (replies of frozen records cache their text per writer). */
  writer(operation: OperationSpec, status: number): Serialize {
    // per request: a lookup by the operation object, no key string built
    let byStatus = this.writers.get(operation);
    if (!byStatus) this.writers.set(operation, (byStatus = new Map()));
    let writer = byStatus.get(status);
    if (!writer) {
      let serialize: Serialize | null | undefined; // compiled on the first reply
      writer = (body) => this.writeWith((serialize ??= this.for(operation, status)), operation, status, body);
      byStatus.set(status, writer);
    }
    return writer;
  }

  /** The reply's text; a body the serializer cannot write is written by JSON.stringify and logged. */
  write(operation: OperationSpec, status: number, body: unknown): string {
    return this.writeWith(this.for(operation, status), operation, status, body);
  }

  private writeWith(serialize: Serialize | null, operation: OperationSpec, status: number, body: unknown): string {
    if (!serialize) return JSON.stringify(body);
    let text: string;
    try {
      text = serialize(body);
    } catch (err) {
      if (this.strict) throw new SerializerMismatch(`${operation.operationId} ${status}: ${(err as Error).message}`);
      this.log.error('reply does not fit its schema; written as it is', { operationId: operation.operationId, status, error: (err as Error).message });
      return JSON.stringify(body);
    }
    if (this.strict) {
      const difference = firstDifference(JSON.parse(JSON.stringify(body)), JSON.parse(text), '');
      if (difference !== null) throw new SerializerMismatch(`${operation.operationId} ${status}: the body written from the schema differs at ${difference || '(root)'}: a field the spec does not declare, or a value of another type`);
    }
    return text;
  }

  private compile(operation: OperationSpec, status: string): Serialize | null {
    const doc = this.documentOf.get(operation.operationId);
    const schema = doc && responseSchema(doc.document, operation, status);
    if (!doc || !schema) return null;
    let external = this.external.get(doc);
    if (!external) {
      external = { [DEFS]: forSerializer({ $id: DEFS, definitions: doc.document.components?.schemas ?? {} }) as Record<string, unknown> };
      this.external.set(doc, external);
    }
    try {
      return fastJson(forSerializer(schema) as never, { schema: external as never, ajv: { strict: false } }) as Serialize;
    } catch (err) {
      this.log.warn('no serializer for this reply; JSON.stringify writes it', { operationId: operation.operationId, status, error: (err as Error).message });
      return null;
    }
  }
}

export class SerializerMismatch extends Error {}

/** The path of the first place two JSON values differ, or null when they are equal. */
function firstDifference(expected: unknown, actual: unknown, at: string): string | null {
  if (isDeepStrictEqual(expected, actual)) return null;
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    for (let i = 0; i < expected.length; i += 1) {
      const d = firstDifference(expected[i], actual[i], `${at}[${i}]`);
      if (d !== null) return d;
    }
  }
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object' && !Array.isArray(expected) && !Array.isArray(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const d = firstDifference((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${at}.${key}`);
      if (d !== null) return d;
    }
  }
  return at;
}
