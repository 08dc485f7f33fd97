// Where a run's OpenTelemetry spans go: one tracer provider per process (the main thread and
// each run worker) that keeps every finished span of a run until the run takes them (so the
// store holds the run's trace without any collector) and, when the standard
// OTEL_EXPORTER_OTLP_ENDPOINT is set, also exports them over OTLP/HTTP (JSON), through the exporter of
// the settings the process installed (ports/spanExport.ts, read from its environment by an adapter). What the spans
// hold of a conversation (messages, tool arguments and results, node inputs and outputs) is
// exported only with AGENTPLANE_TRACE_CONTENT=1: the GenAI conventions leave content capture
// off by default, as it may hold personal data. The trace a run keeps always has it (it is read
// by whoever may read the thread, which holds the same messages).
import type { Attributes, Context } from '@opentelemetry/api';
import { runSpanSettings, type RunSpanSettings } from '../../ports/spanExport.ts';
import type { TraceSpan } from '../../../../generated/agent-server/types.gen.ts';
import { createRequire } from 'node:module';
import { copyInto } from '../../copyWith.ts';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type { BasicTracerProvider, ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

// The OpenTelemetry SDK costs 0.3–0.5 s of start-up to import and only a run needs it: it is
// required (their CommonJS builds, synchronously) on the first run, not imported at start.
const requireOnFirstRun = createRequire(import.meta.url);

/** One span of a run's trace as the store keeps it (and GET .../trace returns it). */
export type { TraceSpan };

/** A run keeps at most this many spans: a runaway loop cannot grow its record without bound. */
export const MAX_SPANS_PER_RUN = 500;

/** The attribute every span of a run carries: how the collector finds a run's spans. */
export const RUN_ID_ATTRIBUTE = 'agentplane.run_id';
/** A span's attributes as a run keeps them: without the two this process added to find the span's run. */
const isOwnAttribute = (key: string) => key !== RUN_ID_ATTRIBUTE && key !== 'agentplane.kind';

class RunSpanCollector implements SpanProcessor {
  private readonly byRun = new Map<string, TraceSpan[]>();

  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    const runId = span.attributes[RUN_ID_ATTRIBUTE];
    if (typeof runId !== 'string') return;
    let spans = this.byRun.get(runId);
    if (!spans) this.byRun.set(runId, (spans = []));
    if (spans.length < MAX_SPANS_PER_RUN) spans.push(toTraceSpan(span));
  }

  /** The run's finished spans, oldest first; forgotten here once taken. */
  take(runId: string): TraceSpan[] {
    const spans = this.byRun.get(runId) ?? [];
    this.byRun.delete(runId);
    return spans.sort((a, b) => a.start_time.localeCompare(b.start_time));
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const hrToMs = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;

export function toTraceSpan(span: ReadableSpan): TraceSpan {
  const error = span.status.code === 2;
  // built key by key, in the order of the type's fields: a literal's spreads and a rest with a
  // computed key cost V8 runtime calls while this is not optimised (issue 86, a run's worker CPU)
  const traced = {
    span_id: span.spanContext().spanId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: String(span.attributes['agentplane.kind']) as TraceSpan['kind'],
    start_time: new Date(hrToMs(span.startTime)).toISOString(),
    end_time: new Date(hrToMs(span.endTime)).toISOString(),
    duration_ms: Math.round(hrToMs(span.duration) * 1000) / 1000,
    status: error ? 'error' : 'ok',
  } as TraceSpan;
  if (error && span.status.message) traced.error = span.status.message;
  const stack = error ? stackOf(span) : undefined;
  if (stack) traced.stacktrace = stack;
  const attributes: Attributes = {};
  copyInto(attributes, span.attributes, isOwnAttribute);
  traced.attributes = attributes;
  return traced;
}

/** The stack of the exception a failed span recorded (its `exception` event), if it had one. */
function stackOf(span: ReadableSpan): string | undefined {
  const stack = span.events.find((e) => e.name === 'exception')?.attributes?.['exception.stacktrace'];
  return typeof stack === 'string' && stack ? stack : undefined;
}

/** The attributes that hold a conversation's content (exported only when content capture is on). */
export const CONTENT_ATTRIBUTES = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'input.value',
  'output.value',
  'langgraph.interrupt.value',
];

/** An exporter that hands on each span without its content attributes. */
function withoutContent(exporter: SpanExporter): SpanExporter {
  const strip = (span: ReadableSpan): ReadableSpan => {
    const attributes = { ...span.attributes };
    for (const key of CONTENT_ATTRIBUTES) delete attributes[key];
    // the span itself is the prototype: its context, times, events and status read through
    return Object.create(span, { attributes: { value: attributes } }) as ReadableSpan;
  };
  return {
    export: (spans, done) => exporter.export(spans.map(strip), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The resource every span is exported with: the service (and deployment) and agentplane's version. */
function resourceAttributes(settings: RunSpanSettings): Record<string, string> {
  return {
    'service.name': settings.serviceName,
    // agentplane's version, which the server that starts (runtime/server.ts) puts in the environment the run workers inherit
    ...(settings.version ? { 'service.version': settings.version } : {}),
    ...(settings.deploymentName ? { 'deployment.name': settings.deploymentName } : {}),
  };
}

let installed: { provider: BasicTracerProvider; collector: RunSpanCollector } | undefined;

/** This process's tracer provider (made on first use, from the settings the process installed). */
export function runSpans(): { provider: BasicTracerProvider; collector: RunSpanCollector } {
  if (installed) return installed;
  const { BasicTracerProvider, BatchSpanProcessor } = requireOnFirstRun('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
  const { resourceFromAttributes } = requireOnFirstRun('@opentelemetry/resources') as typeof Resources;
  const collector = new RunSpanCollector();
  const processors: SpanProcessor[] = [collector];
  const settings = runSpanSettings();
  // the exporter of the installed settings (ports/spanExport.ts), when the environment asks for one
  const { exporter } = settings;
  if (exporter) {
    processors.push(new BatchSpanProcessor(settings.traceContent ? exporter : withoutContent(exporter), { scheduledDelayMillis: 500 }));
  }
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resourceAttributes(settings)), spanProcessors: processors });
  installed = { provider, collector };
  return installed;
}
