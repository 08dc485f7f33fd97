// JSON replies written from the operation's documented response schema (fast-json-stringify):
// faster than JSON.stringify for the shapes the spec fixes, and a field the spec does not
// declare for an object with declared properties never reaches a client (a second line of
// defence for secrets). The serializers are compiled by `npm run generate`
// (generated/<document>/reply.serializers.gen.js), one per distinct response schema, so a
// start compiles nothing; each is built from its generated code the first time it writes.
// Objects the spec leaves open (no `properties`) are written whole.
import { isDeepStrictEqual } from 'node:util';
import type { ApiDocument } from '../../api.ts';
import type { OperationSpec, Serialize } from '../../contract.ts';
import type { Logger } from '../../logging/logger.ts';

export type { Serialize } from '../../contract.ts';

export class ReplySerializers {
  private readonly built = new Map<string, Serialize>();
  private readonly writers = new Map<OperationSpec, Map<number, Serialize>>();
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
    const name = operation.responses[String(status)]?.validator;
    const factory = name ? this.documentOf.get(operation.operationId)?.serializers[name] : undefined;
    if (!name || !factory) return null;
    let serialize = this.built.get(name);
    if (!serialize) this.built.set(name, (serialize = factory()));
    return serialize;
  }

  /** One stable writer per operation and status (replies of frozen records cache their text per writer). */
  writer(operation: OperationSpec, status: number): Serialize {
    // per request: a lookup by the operation object, no key string built
    let byStatus = this.writers.get(operation);
    if (!byStatus) this.writers.set(operation, (byStatus = new Map()));
    let writer = byStatus.get(status);
    if (!writer) {
      let serialize: Serialize | null | undefined; // built on the first reply
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
      this.log.error('reply does not fit its schema; written as it is', {
        operationId: operation.operationId,
        method: operation.method,
        path: operation.path,
        status,
        error: (err as Error).message,
      });
      return JSON.stringify(body);
    }
    if (this.strict) {
      const difference = firstDifference(JSON.parse(JSON.stringify(body)), JSON.parse(text), '');
      if (difference !== null) {
        const where = difference || '(root)';
        throw new SerializerMismatch(
          `${operation.operationId} ${status}: the body written from the schema differs at ${where}: a field the spec does not declare, or a value of another type`,
        );
      }
    }
    return text;
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
