// The OTLP/HTTP (JSON) exporter, made when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or its
// traces variant) is set; the exporter reads the other OTEL_EXPORTER_OTLP_* variables itself
// (headers, timeout). Required on the first run, not imported at start: the OpenTelemetry
// packages cost 0.3–0.5 s of start-up and only a run needs them.
import { createRequire } from 'node:module';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

const requireOnFirstRun = createRequire(import.meta.url);

export const otlpExporterFromEnv = (env: NodeJS.ProcessEnv): SpanExporter | undefined => {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const { OTLPTraceExporter } = requireOnFirstRun('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  return new OTLPTraceExporter();
};
