// Configuration: CLI flags win over environment variables, which win over defaults.
// The project file (agentplane.json) names the graphs and the HTTP switches.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LogLevel } from './logger.ts';

export interface ProjectConfig {
  graphs?: Record<string, string>;
  http?: { disable_a2a?: boolean; [key: string]: unknown };
  auth?: { agent_server?: boolean };
  a2a?: { default_assistant?: string };
  [key: string]: unknown;
}

export interface ServerConfig {
  port: number;
  host: string;
  /** null keeps all state in memory (tests, mock mode without --data). */
  dataDir: string | null;
  configFile: string | null;
  project: ProjectConfig;
  mock: boolean;
  /** Base URL used in links the server hands out (agent cards); otherwise the request's Host. */
  publicUrl: string | null;
  maxBodyBytes: number;
  validateResponses: boolean;
  logLevel: LogLevel;
  /** `key:tenant-uuid,...`; a key listed with several tenants spans them. */
  apiKeys: string | null;
  apiKeysFile: string | null;
  /** Require API keys on agent-server and A2A routes too (off like the upstream dev server). */
  agentServerAuth: boolean;
  env: Record<string, string | undefined>;
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v);

export function loadConfig(argv: string[] = [], env: Record<string, string | undefined> = process.env, cwd = process.cwd()): ServerConfig {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      config: { type: 'string' },
      mock: { type: 'boolean' },
      memory: { type: 'boolean' },
    },
  });
  const configFile = resolveConfigFile(values.config ?? env.AGENTPLANE_CONFIG, cwd);
  const project = configFile ? readProject(configFile) : {};
  const dataDir = values.memory || truthy(env.AGENTPLANE_MEMORY) ? null : path.resolve(cwd, values.data ?? env.DATA_DIR ?? './data');
  const port = Number(values.port ?? env.PORT ?? 8123);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${values.port ?? env.PORT}`);
  return {
    port,
    host: values.host ?? env.HOST ?? '127.0.0.1',
    dataDir,
    configFile,
    project,
    mock: values.mock ?? truthy(env.AGENTPLANE_MOCK),
    publicUrl: env.AGENTPLANE_PUBLIC_URL ?? env.LANGGRAPH_API_URL ?? null,
    maxBodyBytes: Number(env.AGENTPLANE_MAX_BODY_BYTES ?? 1024 * 1024),
    validateResponses: truthy(env.AGENTPLANE_VALIDATE_RESPONSES),
    logLevel: (env.LOG_LEVEL as LogLevel) ?? 'info',
    apiKeys: env.AGENTPLANE_API_KEYS ?? null,
    apiKeysFile: env.AGENTPLANE_API_KEYS_FILE ?? null,
    agentServerAuth: project.auth?.agent_server ?? truthy(env.AGENTPLANE_AGENT_SERVER_AUTH),
    env,
  };
}

function resolveConfigFile(given: string | undefined, cwd: string): string | null {
  if (given) {
    const file = path.resolve(cwd, given);
    if (!fs.existsSync(file)) throw new Error(`config file not found: ${file}`);
    return file;
  }
  const fallback = path.resolve(cwd, 'agentplane.json');
  return fs.existsSync(fallback) ? fallback : null;
}

function readProject(file: string): ProjectConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`config file ${file} must hold a JSON object`);
  const project = parsed as ProjectConfig;
  if (project.http?.disable_a2a !== undefined && typeof project.http.disable_a2a !== 'boolean') {
    throw new Error(`config file ${file}: http.disable_a2a must be a boolean`);
  }
  return project;
}
