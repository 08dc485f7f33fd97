// The run tracer's span attributes and the kept trace's spans, built key by key (issue 86: the
// literals' computed keys and spreads cost V8 runtime calls in the run worker) — the same objects,
// keys in the same order, as the literals they replace (written out here) on generated input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { spanAttributes } from '../../../../src/domain/agent/tracing/runTracer.ts';
import { RUN_ID_ATTRIBUTE, toTraceSpan } from '../../../../src/domain/agent/tracing/runSpans.ts';

const same = (a: unknown, b: unknown) => {
  assert.deepStrictEqual(a, b);
  assert.deepStrictEqual(JSON.stringify(a), JSON.stringify(b));
  assert.deepStrictEqual(Reflect.ownKeys(a as object), Reflect.ownKeys(b as object));
};

const key = fc.oneof(fc.string(), fc.constantFrom(RUN_ID_ATTRIBUTE, 'agentplane.kind', '__proto__', '0', '12', 'input.value'));
const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(undefined), fc.array(fc.string(), { maxLength: 3 }));
const attributes = fc.array(fc.tuple(key, value), { maxLength: 8 }).map((entries) => {
  const a: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(a, k, { value: v, enumerable: true, writable: true, configurable: true });
  return a as Attributes;
});

test('spanAttributes: the literal { [RUN_ID_ATTRIBUTE]: runId, "agentplane.kind": kind, ...defined(attributes) }', () => {
  const defined = (a: Attributes): Attributes => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined));
  fc.assert(
    fc.property(fc.string(), fc.constantFrom('run', 'node', 'model', 'tool') as fc.Arbitrary<'run'>, attributes, (runId, kind, a) => {
      same(spanAttributes(runId, kind, a), { [RUN_ID_ATTRIBUTE]: runId, 'agentplane.kind': kind, ...defined(a) });
    }),
    { numRuns: 500 },
  );
});

test('toTraceSpan: the literal with the rest of the attributes and the optional error and stack spread in', () => {
  const hrToMs = ([s, n]: [number, number]) => s * 1000 + n / 1e6;
  const stackOf = (span: ReadableSpan) => {
    const stack = span.events.find((e) => e.name === 'exception')?.attributes?.['exception.stacktrace'];
    return typeof stack === 'string' && stack ? stack : undefined;
  };
  const literal = (span: ReadableSpan) => {
    const { [RUN_ID_ATTRIBUTE]: _run, 'agentplane.kind': kind, ...rest } = span.attributes;
    const error = span.status.code === 2;
    return {
      span_id: span.spanContext().spanId,
      parent_span_id: span.parentSpanContext?.spanId ?? null,
      name: span.name,
      kind: String(kind),
      start_time: new Date(hrToMs(span.startTime)).toISOString(),
      end_time: new Date(hrToMs(span.endTime)).toISOString(),
      duration_ms: Math.round(hrToMs(span.duration) * 1000) / 1000,
      status: error ? 'error' : 'ok',
      ...(error && span.status.message ? { error: span.status.message } : {}),
      ...(error && stackOf(span) ? { stacktrace: stackOf(span) } : {}),
      attributes: rest,
    };
  };
  const hr = fc.tuple(fc.integer({ min: 0, max: 2_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 })) as fc.Arbitrary<[number, number]>;
  const span = fc.record({
    name: fc.string(),
    attributes,
    code: fc.constantFrom(0, 1, 2),
    message: fc.option(fc.string(), { nil: undefined }),
    stack: fc.option(fc.oneof(fc.string(), fc.integer()), { nil: undefined }),
    parent: fc.option(fc.string({ minLength: 1, maxLength: 16 }), { nil: undefined }),
    start: hr,
    end: hr,
    duration: hr,
  });
  fc.assert(
    fc.property(span, (s) => {
      const readable = {
        name: s.name,
        attributes: s.attributes,
        status: { code: s.code, message: s.message },
        events: s.stack === undefined ? [] : [{ name: 'exception', attributes: { 'exception.stacktrace': s.stack } }],
        spanContext: () => ({ spanId: 'aaaaaaaaaaaaaaaa' }),
        parentSpanContext: s.parent === undefined ? undefined : { spanId: s.parent },
        startTime: s.start,
        endTime: s.end,
        duration: s.duration,
      } as unknown as ReadableSpan;
      same(toTraceSpan(readable), literal(readable));
    }),
    { numRuns: 500 },
  );
});
