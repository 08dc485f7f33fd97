// Starts agentplane as a child process (`node bin/agentplane.js serve`) with
// its own API key, a project file naming the echo graph, and quiet logs.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { BENCH_GRAPH, PLAIN_GRAPH, ROOT, writeBenchGraph } from './graph.ts';
import { freePort, startChild, type Child } from './proc.ts';
import { uuid5 } from '../../src/domain/agent/ids.ts';
import { refuseStaleBuild } from './builtTree.ts';

export { ROOT };

export interface Agentplane extends Child {
  key: string;
  tenant: string;
  dataDir: string | null;
  headers: Record<string, string>;
  api(pathname: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: any; text: string }>;
}

/** A contender's flags (`<tree>@<flag>,<flag>` in the A/B scripts) split: node's flags, and `NAME=value` ones as the server's environment. */
export function flagsAndSettings(list: readonly string[]): { flags: string[]; env: Record<string, string> } {
  const setting = /^[A-Z_][A-Z0-9_]*=/;
  return {
    flags: list.filter((f) => !setting.test(f)),
    env: Object.fromEntries(list.filter((f) => setting.test(f)).map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)])),
  };
}

/**
 * The project a bench server serves. The LangGraph graph's file is written inside the server's
 * own tree (`root`), so that its imports resolve to that tree's node_modules: a baseline's
 * worktree has node_modules of its own (hard links, other paths), and a graph written in the
 * current tree made its server load two copies of @langchain/core and LangGraph — the graph
 * ran on the other copy, without what the server sets on its own (the linear callback copy).
 */
export function benchProject(root: string, graphs: Record<string, string> = {}) {
  return {
    graphs: { [PLAIN_GRAPH]: `${path.join(ROOT, 'examples/graphs/echo.ts')}:echo`, [BENCH_GRAPH]: writeBenchGraph(path.join(root, '.bench/graph')), ...graphs },
    a2a: { default_assistant: PLAIN_GRAPH },
  };
}

/** `root`: the tree whose bin/agentplane.js runs (the current one, or the baseline's worktree); `nodeArgs` go before it (`--cpu-prof`). */
export async function startAgentplane(options: {
  dataDir: string | null;
  workDir: string;
  key?: string;
  tenant?: string;
  /** Added to the bench's own environment; a variable set to undefined is left out (DATABASE_URL for the embedded store). */
  env?: Record<string, string | undefined>;
  graphs?: Record<string, string>;
  root?: string;
  nodeArgs?: string[];
  /** A command node runs under, with its arguments (valgrind: routeInstructions.ts), and how long its start may take. */
  wrapper?: { command: string; args: string[]; startTimeoutMs: number };
}): Promise<Agentplane> {
  const root = path.resolve(options.root ?? ROOT); // a relative root (`.`) would name the graph file beside the config
  await refuseStaleBuild(root);
  const key = options.key ?? `bench-${randomUUID()}`;
  const tenant = options.tenant ?? randomUUID();
  fs.mkdirSync(options.workDir, { recursive: true });
  const configFile = path.join(options.workDir, 'agentplane.json');
  fs.writeFileSync(configFile, JSON.stringify(benchProject(root, options.graphs), null, 2));
  const port = await freePort();
  // the shipped entry point (what `npx agentplane` runs), not `--import tsx src/runtime/main.ts`
  const args = [
    ...(options.nodeArgs ?? []),
    path.join(root, 'bin/agentplane.js'),
    'serve',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--config',
    configFile,
  ];
  args.push(...(options.dataDir ? ['--data', options.dataDir] : ['--memory']));
  const child = await startChild({
    name: 'agentplane',
    command: options.wrapper?.command ?? process.execPath,
    args: options.wrapper ? [...options.wrapper.args, process.execPath, ...args] : args,
    timeoutMs: options.wrapper?.startTimeoutMs,
    cwd: root,
    env: {
      AGENTPLANE_API_KEYS: `${key}:${tenant}`,
      // at the default log level (info: an access line per request), as users run it; a figure
      // taken at another level says so (options.env)
      AGENTPLANE_VALIDATE_RESPONSES: undefined,
      NODE_ENV: 'production',
      ...options.env,
    },
    port,
    // up means serving its graphs: a shipped graph's assistant, the request a user waits for
    // (the port opens before the graphs load; every request, /ok too, waits for them)
    probePath: process.env.BENCH_PROBE ?? `/assistants/${uuid5(BENCH_GRAPH)}`,
    probeHeaders: { 'x-api-key': key },
  });
  const headers = { 'x-api-key': key };
  return {
    ...child,
    key,
    tenant,
    dataDir: options.dataDir,
    headers,
    api: (pathname, init = {}) => request(child.url + pathname, { method: init.method, headers, json: init.json }),
  };
}

export async function request(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; timeoutMs?: number } = {}) {
  const res = await fetch(url, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: { ...init.headers, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    signal: init.timeoutMs === undefined ? undefined : AbortSignal.timeout(Math.round(init.timeoutMs)),
  });
  const text = await res.text();
  let body: any = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, text, contentType: res.headers.get('content-type') ?? 'application/json' };
}

export function expectStatus(what: string, res: { status: number; text: string }, ...ok: number[]): void {
  if (!ok.includes(res.status)) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
}
