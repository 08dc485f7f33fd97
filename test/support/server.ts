// Test servers: in-process on 127.0.0.1 with a free port (fast), or as a child process
// (for kill -9 and restart). Replies are checked against the spec in both.
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig, type ProjectConfig } from '../../src/runtime/config.ts';
import { createLogger, type Logger } from '../../src/runtime/logging/logger.ts';
import { startServer, type AppFactory, type AreaName, type RunningServer } from '../../src/compose/server.ts';
import type { FetchHandler } from '../../src/runtime/transports/inProcess.ts';
import { createApplication } from '../../src/compose/application.ts';
import { startPrism } from './prism.ts';
import { databaseForDataDir, testBackend } from './postgres.ts';
import { withCompiledModules } from './compiledGraphs.ts';
import { logLine } from './logLines.ts';
import { tempDir } from './tempDirs.ts';
import { cliEntry } from './childImports.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface TestServer extends RunningServer {
  key: string;
  tenant: string;
  dataDir: string | null;
  /** fetch against the server with the API key set. */
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export interface TestServerOptions {
  mock?: boolean;
  /** A directory to keep state in; 'temp' (default) makes a fresh one; null keeps it in memory. */
  dataDir?: string | null | 'temp';
  env?: Record<string, string>;
  project?: ProjectConfig;
  app?: AppFactory;
  /** The server's logger (silent unless TEST_LOG_LEVEL says otherwise), for a test that waits on its lines. */
  log?: Logger;
  /**
   * Where graphs execute: AGENTPLANE_RUN_WORKERS for this server, or 'default' for the
   * product's default (worker threads). Unset: AGENTPLANE_TEST_RUN_WORKERS, else '0' (the
   * request loop). A server's first worker loads LangGraph and the project again, ~1.5 CPU-s
   * per server and most of a short test file's CPU, while most tests are about the wire, not
   * where a graph runs: those about workers ask for them, the suites about runs pass in
   * workers too (test/adapters/run-workers.e2e.test.ts, and in full in the release
   * checks), and an AGENTPLANE_RUN_WORKERS in the environment applies to every server.
   */
  runWorkers?: string;
  /**
   * Which of the repository's example graphs (agentplane.json) a server with that project
   * serves: 'plain' (default) the plain-function ones only (echo), 'all' the LangGraph ones
   * too (agent, approval, breakpoint, connected). Importing those loads LangGraph, ~1.2 CPU-s
   * per test process, which most tests (the wire, the store, auth, echo runs) never use.
   * Ignored when `project`, or the environment, names another project.
   */
  exampleGraphs?: 'plain' | 'all';
  /**
   * Serve the project's TypeScript modules (graphs, auth module, embedder) from the test run's
   * compiled copies when the tests run compiled (test/support/compiledGraphs.ts); ignored through tsx. The
   * default: a TypeScript graph registers tsx's loader in the process that loads it (the test
   * process itself for a server on the request loop and for the auth, each worker else), and
   * every module loaded after crosses the loader's thread. `false` for a test whose subject is
   * how a TypeScript graph loads (its types read as schemas, its source's paths, tsx's
   * registration).
   */
  compiledModules?: boolean;
}

/** The example graphs that are plain functions (examples/graphs/echo.ts): serving them loads no LangGraph. */
const PLAIN_EXAMPLE_GRAPHS = new Set(['echo']);
const EXAMPLE_PROJECT_FILE = path.join(ROOT, 'agentplane.json');

/** The project a test server serves: the repository's example project, its LangGraph graphs only when asked for. */
function projectOf(config: ProjectConfig, configFile: string | null, options: TestServerOptions): ProjectConfig {
  if (options.project) return options.project;
  if (options.exampleGraphs === 'all' || configFile !== EXAMPLE_PROJECT_FILE) return config;
  const graphs = Object.fromEntries(Object.entries(config.graphs ?? {}).filter(([id]) => PLAIN_EXAMPLE_GRAPHS.has(id)));
  return { ...config, graphs };
}

/** AGENTPLANE_RUN_WORKERS for a test server, unless the environment sets it (see TestServerOptions.runWorkers). */
function runWorkersOf(options: TestServerOptions): { AGENTPLANE_RUN_WORKERS?: string } {
  if (options.runWorkers === undefined && process.env.AGENTPLANE_RUN_WORKERS !== undefined) return {};
  const workers = options.runWorkers ?? process.env.AGENTPLANE_TEST_RUN_WORKERS ?? '0';
  return { AGENTPLANE_RUN_WORKERS: workers === 'default' ? undefined : workers };
}

export { tempDir } from './tempDirs.ts';

/** The configuration, keys and logger of a test server (in process or on a port). */
async function testConfig(options: TestServerOptions) {
  const tenant = randomUUID();
  const key = `test-key-${randomUUID()}`;
  const dataDir = options.dataDir === undefined || options.dataDir === 'temp' ? tempDir() : options.dataDir;
  const env = {
    ...process.env,
    ...runWorkersOf(options),
    AGENTPLANE_API_KEYS: `${key}:${tenant}`,
    AGENTPLANE_VALIDATE_RESPONSES: '1',
    AGENTPLANE_PHASE_MS: '5',
    // a test asks for the schemas it tests: reading every graph's types at each start would
    // cost every test server CPU (the server's default reads them in the background)
    AGENTPLANE_SCHEMA_WARMUP: '0',
    // nor a run worker started ahead of the first run, ~1 CPU-s per server with workers that may never run
    AGENTPLANE_RUN_WORKER_WARMUP: '0',
    // the A2A gRPC port is the product's default, but loading gRPC costs every test server
    // CPU: the tests of the gRPC binding ask for it (AGENTPLANE_GRPC_PORT: '0')
    AGENTPLANE_GRPC_PORT: 'off',
    // the development OAuth provider stands in for unconfigured providers on a loopback server
    // (the product's default there): the tests of agent auth expect what a configured server
    // answers, and those of the stand-in ask for it
    AGENTPLANE_DEV_OAUTH: 'off',
    ...options.env,
  };
  const config = loadConfig(['--port', '0', '--host', '127.0.0.1', ...(options.mock ? ['--mock'] : [])], env, ROOT);
  config.dataDir = dataDir;
  if (dataDir === null) config.dataDir = null;
  config.project = projectOf(config.project, config.configFile, options);
  if (options.compiledModules ?? true) config.project = withCompiledModules(config.project, ROOT);
  // AGENTPLANE_TEST_BACKEND=postgres runs the same tests on PostgreSQL: one database per
  // data directory, so a test restarting a server on its directory finds its records again
  if (testBackend() === 'postgres' && !options.mock) config.databaseUrl = await databaseForDataDir(dataDir);
  const log = options.log ?? createLogger((process.env.TEST_LOG_LEVEL as never) ?? 'silent');
  return { config, log, key, tenant, dataDir };
}

/** `api`: a call with the test key set (unless the call sets one), and `json` sent as a JSON body. */
function apiCaller(url: string, key: string, send: typeof fetch): TestServer['api'] {
  return (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('x-api-key') && !headers.has('authorization')) headers.set('x-api-key', key);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return send(url + pathname, { ...init, headers, body });
  };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  return serveTest(options);
}

/** A test server on a port: the whole application, or the areas named (test/support/area.ts). */
async function serveTest(options: TestServerOptions, areas?: readonly AreaName[]): Promise<TestServer> {
  const { config, log, key, tenant, dataDir } = await testConfig(options);
  const server = await startServer(config, options.app ?? (areas ? undefined : createApplication), log, { areas });
  // AGENTPLANE_TEST_VIA_PRISM=<spec file> puts a Prism validation proxy in front, so an
  // integration test runs unchanged through it (test/release/prism-integration.release.test.ts)
  const viaPrism = process.env.AGENTPLANE_TEST_VIA_PRISM;
  const proxy = viaPrism ? await startPrism(viaPrism, server.url) : undefined;
  const url = proxy?.url ?? server.url;
  return {
    ...server,
    url,
    key,
    tenant,
    dataDir,
    close: async () => {
      await proxy?.stop();
      await server.close();
      if (proxy && /violation/i.test(proxy.output())) throw new Error(`Prism reported violations:\n${proxy.output()}`);
    },
    api: apiCaller(url, key, fetch),
  };
}

export interface InProcessApp extends Omit<TestServer, 'http' | 'port' | 'grpc' | 'releaseUnused'> {
  /** The application's entry: a Request answered through the server's pipeline, with no socket. */
  handle: FetchHandler;
  /**
   * fetch, answered in process: a URL on `url` (or a bare path) reaches the application; it
   * does not follow redirects (as fetch with `redirect: 'manual'`).
   */
  fetch: typeof fetch;
}

/**
 * The application as startTestServer makes it (same configuration, keys, store, checks of
 * every reply), answering in process through `handle`: for tests of rules that need no socket.
 * Tests of the wire (SDK clients that need a URL, restarts, browsers, faults) start a server.
 */
export async function inProcessApp(options: TestServerOptions = {}): Promise<InProcessApp> {
  return answerInProcess(options);
}

/**
 * The whole application, or the areas named alone (test/support/area.ts: the others' routes
 * answer 404), answering in process.
 */
export async function answerInProcess(options: TestServerOptions, areas?: readonly AreaName[]): Promise<InProcessApp> {
  // the Prism run (test/release/prism-integration.release.test.ts) needs the wire: the same
  // calls then go through a listening server and the proxy in front of it
  if (process.env.AGENTPLANE_TEST_VIA_PRISM) return overTheWire(await serveTest(options, areas));
  const { config, log, key, tenant, dataDir } = await testConfig(options);
  const server = await startServer(config, options.app ?? (areas ? undefined : createApplication), log, { listen: false, areas });
  const inProcessFetch = ((input: string | URL | Request, init?: RequestInit) => {
    const target = typeof input === 'string' && input.startsWith('/') ? server.url + input : input;
    const request = new Request(target, init);
    // the User-Agent Node's fetch sends when none is set (light-my-request's own would show instead)
    if (!request.headers.has('user-agent')) request.headers.set('user-agent', 'node');
    return server.handle(request);
  }) as typeof fetch;
  return {
    url: server.url,
    store: server.store,
    createdKey: server.createdKey,
    tokenKey: server.tokenKey,
    key,
    tenant,
    dataDir,
    handle: server.handle,
    fetch: inProcessFetch,
    api: apiCaller(server.url, key, inProcessFetch),
    close: server.close,
    reload: server.reload,
  };
}

/** A listening test server behind the in-process app's interface: every call is a real request to its URL. */
function overTheWire(server: TestServer): InProcessApp {
  const wireFetch = ((input: string | URL | Request, init?: RequestInit) => {
    const target = typeof input === 'string' && input.startsWith('/') ? server.url + input : input;
    // as the in-process fetch: redirects are answered, not followed
    return fetch(new Request(target, { redirect: 'manual', ...init }));
  }) as typeof fetch;
  const { url, store, createdKey, tokenKey, key, tenant, dataDir, close, reload } = server;
  return {
    url,
    store,
    createdKey,
    tokenKey,
    key,
    tenant,
    dataDir,
    handle: (request) => fetch(new Request(server.url + new URL(request.url).pathname + new URL(request.url).search, request)),
    fetch: wireFetch,
    api: apiCaller(url, key, wireFetch),
    close,
    reload,
  };
}

export interface ChildServer {
  url: string;
  process: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `agentplane serve` as a child process on a free port and waits until it listens. */
/** `cwd` is where the server looks for its project file (the repository root by default). */
export async function spawnServer(args: string[], env: Record<string, string> = {}, cwd: string = ROOT): Promise<ChildServer> {
  const dataAt = args.indexOf('--data');
  if (testBackend() === 'postgres' && !args.includes('--mock') && !args.includes('--memory') && dataAt >= 0 && !env.DATABASE_URL) {
    env = { ...env, DATABASE_URL: await databaseForDataDir(path.resolve(cwd, args[dataAt + 1])) };
  }
  // through the CLI's entry point, as a user starts it (it loads LangGraph before tsx), or the run's compiled copy of it
  const child = spawn(process.execPath, [...cliEntry(), 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    cwd,
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      AGENTPLANE_PHASE_MS: '5',
      AGENTPLANE_SCHEMA_WARMUP: '0',
      AGENTPLANE_RUN_WORKER_WARMUP: '0',
      // a TMPDIR removed with this process: one killed -9 (as the fault tests do) leaves what it made there (a warm-up's folder) to no one
      TMPDIR: tempDir('agentplane-child-tmp-'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // generous (a loaded machine starts slowly), and a server that did not start in time is
    // killed: left running, its pipes would keep the test process alive after the failure
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within 60 s:\n${out}`));
    }, 60_000);
    const check = () => {
      const listening = logLine(out, 'agentplane listening');
      if (listening) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(listening.url);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    process: child,
    output: () => out,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
