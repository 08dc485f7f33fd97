// What `agentplane dev` (and serve) says at start, for a person: where the API, dashboard and docs
// are, which graphs were loaded and under which assistant ids, where the data lives.
import { uuid5 } from './domain/agent/ids.ts';
import type { ServerConfig } from './runtime/config.ts';
import { NO_PROJECT_NEXT_STEPS } from './runtime/project.ts';

/** `grpcPort`: where the A2A gRPC binding answers, null when it does not. */
export function startBanner(config: ServerConfig, url: string, mode: string, grpcPort: number | null = null): string {
  const graphs = Object.entries(config.project.graphs ?? {});
  const lines = [
    '',
    `  agentplane ${mode} — ${config.mock ? 'mock mode' : 'real mode'}`,
    `  API        ${url}`,
    `  dashboard  ${url}/dashboard`,
    `  docs       ${url}/docs`,
    `  A2A gRPC   ${grpcPort === null ? '(off)' : `${new URL(url).hostname}:${grpcPort}`}`,
    `  project    ${config.configFile ?? '(none)'}`,
    `  data       ${config.mock || !config.dataDir ? '(in memory)' : config.dataDir}`,
    `  graphs     ${graphs.length ? '' : '(none)'}`,
    ...graphs.map(([id, entry]) => `    ${id.padEnd(16)} assistant ${uuid5(id)}  ${typeof entry === 'string' ? entry : entry.path}`),
    // a first start in an empty folder: say what to do next rather than only "(none)"
    ...(config.configFile ? [] : ['', '  no project file here; next:', ...NO_PROJECT_NEXT_STEPS.map(([step, what]) => `    ${step.padEnd(40)} ${what}`)]),
    '',
  ];
  return lines.join('\n');
}
