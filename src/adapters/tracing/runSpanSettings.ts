// The run span settings (domain/ports/spanExport.ts) from a process's environment:
// OTEL_SERVICE_NAME (else the deployment's name, else agentplane), AGENTPLANE_TRACE_CONTENT,
// the version the starting server put there for its run workers, and the OTLP exporter when
// the standard variables name an endpoint.
import type { RunSpanSettings } from '../../domain/ports/spanExport.ts';
import { otlpExporterFromEnv } from './otlpExport.ts';

export function runSpanSettingsFromEnv(env: NodeJS.ProcessEnv): RunSpanSettings {
  return {
    serviceName: env.OTEL_SERVICE_NAME || env.AGENTPLANE_DEPLOYMENT_NAME || 'agentplane',
    traceContent: env.AGENTPLANE_TRACE_CONTENT === '1' || env.AGENTPLANE_TRACE_CONTENT === 'true',
    ...(env.AGENTPLANE_VERSION ? { version: env.AGENTPLANE_VERSION } : {}),
    ...(env.AGENTPLANE_DEPLOYMENT_NAME ? { deploymentName: env.AGENTPLANE_DEPLOYMENT_NAME } : {}),
    exporter: otlpExporterFromEnv(env),
  };
}
