// What a process's run spans are made with (domain/agent/tracing/runSpans.ts): the tracing
// project, content capture, the resource, and where spans go beyond the run's own record (an
// exporter the adapter makes from the standard OTEL_EXPORTER_OTLP_* variables,
// adapters/tracing/runSpanSettings.ts). The composition root installs the source in the main
// thread and each run worker in its own; it is read on the process's first run, so the domain
// reads no environment. Without one, spans are kept with their run only.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface RunSpanSettings {
  /** The tracing project: the exported resource's service.name. */
  serviceName: string;
  /** Whether exported spans keep what they hold of a conversation (off by default: it may hold personal data). */
  traceContent: boolean;
  /** agentplane's version (service.version), when known. */
  version?: string;
  /** The deployment the server runs for (deployment.name), when it runs for one. */
  deploymentName?: string;
  /** Where spans are exported, when anywhere. */
  exporter?: SpanExporter;
}

const KEPT_ONLY: RunSpanSettings = { serviceName: 'agentplane', traceContent: false };

let installed: () => RunSpanSettings = () => KEPT_ONLY;

/** Installs where the process's run span settings come from (asked once, on its first run). */
export function useRunSpanSettings(source: () => RunSpanSettings): void {
  installed = source;
}

export function runSpanSettings(): RunSpanSettings {
  return installed();
}
