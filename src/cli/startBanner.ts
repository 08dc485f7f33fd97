// What `agentplane dev` (and serve) says at start, for a person: where the API, dashboard and docs
// are, which graphs were loaded and under which assistant ids, where the data lives.
import { uuid5 } from '../domain/agent/ids.ts';
import type { ServerConfig } from '../runtime/config.ts';
import type { TokenKeySource } from '../runtime/security/tokenKey.ts';
import { NO_PROJECT_NEXT_STEPS } from '../runtime/project/project.ts';

/** `grpcPort`: where the A2A gRPC binding answers, null when it does not. */
export function startBanner(config: ServerConfig, url: string, mode: string, tokenKey?: Omit<TokenKeySource, 'key'>, grpcPort: number | null = null): string {
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
    ...(config.mock || !tokenKey ? [] : agentAuthLines(config, mode, tokenKey)),
    // a first start in an empty folder: say what to do next rather than only "(none)"
    ...(config.configFile ? [] : ['', '  no project file here; next:', ...NO_PROJECT_NEXT_STEPS.map(([step, what]) => `    ${step.padEnd(40)} ${what}`)]),
    '',
  ];
  return lines.join('\n');
}

/** What agent auth (the auth service graphs use) works with: its token key, and which authorization servers it may reach. */
function agentAuthLines(config: ServerConfig, mode: string, tokenKey: Omit<TokenKeySource, 'key'>): string[] {
  const key = {
    AGENTPLANE_TOKEN_KEY: 'AGENTPLANE_TOKEN_KEY',
    'data directory key file': `${tokenKey.file} (made on an earlier start)`,
    'created on this start': `${tokenKey.file} (made on this start)`,
    none: 'none: set AGENTPLANE_TOKEN_KEY (authenticate answers 501 until then)',
  }[tokenKey.origin];
  const { allowHttp, allowedNetworks } = config.agentAuth;
  const reach =
    !allowHttp && allowedNetworks.length === 0
      ? `https and public addresses only (strict${mode === 'dev' ? '' : `; \`dev\` allows this machine's`}: AGENTPLANE_AUTH_ALLOW_HTTP, AGENTPLANE_AUTH_ALLOWED_NETWORKS)`
      : `${allowHttp ? 'plain http allowed' : 'https only'}; private addresses allowed: ${allowedNetworks.length ? allowedNetworks.join(', ') : 'none'}${mode === 'dev' ? ' (dev)' : ''}`;
  const standIn = config.agentAuth.devProvider
    ? 'development stand-in for unconfigured providers, on this server (dev only; AGENTPLANE_DEV_OAUTH=off turns it off)'
    : 'off (AGENTPLANE_DEV_OAUTH)';
  return [`  agent auth token key ${key}`, `             authorization servers: ${reach}`, `             development provider: ${standIn}`];
}
