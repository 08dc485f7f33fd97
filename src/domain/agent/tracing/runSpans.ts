// Where a run's OpenTelemetry spans go: one tracer provider per process (the main thread and
// each run worker) that keeps every finished span of a run until the run takes them (so the
// store holds the run's trace without any collector) and, when the standard
// OTEL_EXPORTER_OTLP_ENDPOINT is set, also exports them over OTLP/HTTP (JSON).
import type { Context } from '@opentelemetry/api';
import type { TraceSpan } from '../../../../generated/agent-server/types.gen.ts';
import { createRequire } from 'node:module';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type { BasicTracerProvider, ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

// The OpenTelemetry SDK costs 0.3–0.5 s of start-up to import and only a run needs it: it is
// required (their CommonJS builds, synchronously) on the first run, not imported at start.
const requireOnFirstRun = createRequire(import.meta.url);

/** One span of a run's trace as the store keeps it (and GET .../trace returns it). */
export type { TraceSpan };

/** A run keeps at most this many spans: a runaway loop cannot grow its record without bound. */
export const MAX_SPANS_PER_RUN = 500;

/** The attribute every span of a run carries: how the collector finds a run's spans. */
export const RUN_ID_ATTRIBUTE = 'agentplane.run_id';

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

function toTraceSpan(span: ReadableSpan): TraceSpan {
  const { [RUN_ID_ATTRIBUTE]: _run, 'agentplane.kind': kind, ...attributes } = span.attributes;
  const error = span.status.code === 2;
  return {
    span_id: span.spanContext().spanId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: String(kind) as TraceSpan['kind'],
    start_time: new Date(hrToMs(span.startTime)).toISOString(),
    end_time: new Date(hrToMs(span.endTime)).toISOString(),
    duration_ms: Math.round(hrToMs(span.duration) * 1000) / 1000,
    status: error ? 'error' : 'ok',
    ...(error && span.status.message ? { error: span.status.message } : {}),
    attributes,
  };
}

/** The tracing project: OTEL_SERVICE_NAME, else the deployment the server runs for, else agentplane. */
export function serviceName(env: NodeJS.ProcessEnv = process.env): string {
  return env.OTEL_SERVICE_NAME || env.AGENTPLANE_DEPLOYMENT_NAME || 'agentplane';
}

let installed: { provider: BasicTracerProvider; collector: RunSpanCollector } | undefined;

/** This process's tracer provider (made on first use, from the environment). */
export function runSpans(): { provider: BasicTracerProvider; collector: RunSpanCollector } {
  if (installed) return installed;
  const { BasicTracerProvider, BatchSpanProcessor } = requireOnFirstRun('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
  const { resourceFromAttributes } = requireOnFirstRun('@opentelemetry/resources') as typeof Resources;
  const collector = new RunSpanCollector();
  const processors: SpanProcessor[] = [collector];
  const env = process.env;
  // the exporter reads the standard OTEL_EXPORTER_OTLP_* variables itself (endpoint, headers)
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    const { OTLPTraceExporter } = requireOnFirstRun('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 }));
  }
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': serviceName(env) }), spanProcessors: processors });
  installed = { provider, collector };
  return installed;
}
