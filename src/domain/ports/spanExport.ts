// Where a run's spans go beyond the run's own record: an exporter the adapter makes from the
// standard OTEL_EXPORTER_OTLP_* variables (adapters/tracing/otlpExport.ts), installed by the
// composition root in the main thread and by each run worker in its own. Without one, spans
// are kept with their run only.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export type SpanExporterFactory = (env: NodeJS.ProcessEnv) => SpanExporter | undefined;

let installed: SpanExporterFactory = () => undefined;

export function useSpanExporter(factory: SpanExporterFactory): void {
  installed = factory;
}

export function spanExporterFactory(): SpanExporterFactory {
  return installed;
}
