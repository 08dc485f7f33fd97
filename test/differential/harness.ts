// The two servers of the differential suite — the upstream JS dev server (pinned, installed
// on demand) and agentplane (`agentplane dev`) — on the same project, and what a scenario
// uses to talk to one of them: the SDK's Client, raw fetch and SSE. Each is started once
// per suite. agentplane keeps its state in memory, or with AGENTPLANE_TEST_BACKEND=postgres
// in a fresh database of the run's PostgreSQL (test/support/postgres.ts), dropped when it stops.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ensureUpstreamCli, stageProject, startUpstreamDev, type UpstreamInstall } from '../../scripts/upstream/langgraphCli.ts';
import { ROOT } from '../support/server.ts';
import { logLine } from '../support/logLines.ts';
import { dropFreshDatabase, freshDatabaseUrl, testBackend } from '../support/postgres.ts';

export const PROJECT = path.join(ROOT, 'test/fixtures/differential-project');
/** The user every scenario acts as unless it says otherwise (see the project's src/auth.ts). */
export const USER = 'alice';
export const bearer = (user: string) => ({ authorization: `Bearer user-${user}` });

export interface RunningServer {
  name: 'upstream' | 'agentplane';
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export interface Servers {
  upstream: RunningServer;
  agentplane: RunningServer;
  install: UpstreamInstall;
  /** Milliseconds each took to start (the upstream install is separate). */
  startMs: { upstream: number; agentplane: number };
}

export interface ServedProject {
  /** The project folder (served in place by agentplane, from a copy by upstream). */
  dir: string;
  /** The copy's name prefix in the upstream install. */
  name: string;
  /** Environment both servers are given (the project's model clients' base URLs and keys). */
  env?: Record<string, string>;
  /** Writes upstream's copy instead of copying `dir`, which leaves node_modules out (a project with a dependency of its own). */
  stage?: (dir: string) => void;
}

/** Installs (if needed) and starts both; if either fails, neither is left running. */
export async function startServers(log: (line: string) => void, served: ServedProject = { dir: PROJECT, name: 'differential' }): Promise<Servers> {
  const install = await ensureUpstreamCli(log);
  if (install.installMs) log(`upstream install took ${(install.installMs / 1000).toFixed(1)} s`);
  const project = stageProject(install, served.name, served.stage ?? served.dir);
  const started = performance.now();
  const [upstream, agentplane] = await Promise.allSettled([
    // upstream gives up reading a graph's TypeScript after 30 s, which a loaded 2-core machine
    // needs for one graph: its answer is the reference, so it is given the time to find it
    startUpstreamDev(install, project, { probeHeaders: bearer(USER), env: { LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: '180000', ...served.env } }).then((child) => ({
      name: 'upstream' as const,
      url: child.url,
      output: child.output,
      startMs: performance.now() - started,
      stop: async () => {
        await child.stop();
        project.remove();
      },
    })),
    startAgentplaneDev(served.dir, served.env).then((server) => ({ ...server, startMs: performance.now() - started })),
  ]);
  if (upstream.status === 'rejected' || agentplane.status === 'rejected') {
    if (upstream.status === 'fulfilled') await upstream.value.stop();
    else project.remove();
    if (agentplane.status === 'fulfilled') await agentplane.value.stop();
    throw upstream.status === 'rejected' ? upstream.reason : (agentplane as PromiseRejectedResult).reason;
  }
  return {
    upstream: upstream.value,
    agentplane: agentplane.value,
    install,
    startMs: { upstream: upstream.value.startMs, agentplane: agentplane.value.startMs },
  };
}

/**
 * `agentplane dev` in the project's folder, no reloading (as the upstream dev server), state in
 * memory: on the PostgreSQL test backend its records in a database of its own, dropped when it
 * stops, and nothing on disk either way.
 */
async function startAgentplaneDev(dir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const database = testBackend() === 'postgres' ? await freshDatabaseUrl() : null;
  try {
    return await startDevOn(dir, env, database);
  } catch (err) {
    if (database) await dropFreshDatabase(database);
    throw err;
  }
}

async function startDevOn(dir: string, env: Record<string, string>, database: string | null): Promise<RunningServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/agentplane.js'), 'dev', '--memory', '--no-reload', '--port', '0', '--host', '127.0.0.1'],
    {
      cwd: dir,
      // a DATABASE_URL of the caller's is not the suite's: the server is on PostgreSQL only when the test backend says so
      env: {
        ...withoutKeys({ ...process.env, LOG_LEVEL: 'info', ...env }, ['AGENTPLANE_API_KEYS', 'AGENTPLANE_CONFIG', 'DATA_DIR', 'DATABASE_URL']),
        ...(database ? { DATABASE_URL: database } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-200_000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-200_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // a server that did not start in time is killed: left running, it would hold its database
      child.kill('SIGKILL');
      reject(new Error(`agentplane dev did not start within 90 s:\n${out.slice(-3000)}`));
    }, 90_000);
    const check = () => {
      const listening = logLine(out, 'agentplane listening');
      if (!listening) return;
      clearTimeout(timer);
      // the suite's verdict on PostgreSQL holds only if the server is on it
      const store = database ? 'postgresql' : 'embedded';
      if (listening.store === store) resolve(listening.url);
      else {
        child.kill('SIGKILL');
        reject(new Error(`agentplane dev listens on the ${String(listening.store)} store, not ${store}:\n${out.slice(-3000)}`));
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`agentplane dev exited:\n${out.slice(-3000)}`));
    });
  });
  let stopped: Promise<void> | null = null;
  return {
    name: 'agentplane',
    url,
    output: () => out,
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        }
        if (database) await dropFreshDatabase(database);
      })()),
  };
}

function withoutKeys(env: NodeJS.ProcessEnv, keys: string[]): NodeJS.ProcessEnv {
  for (const key of keys) delete env[key];
  return env;
}

/** What a scenario gets: one server, reached the ways a client reaches it. */
export interface Side {
  name: RunningServer['name'];
  url: string;
  /** An SDK client acting as the user (alice unless named). */
  client(user?: string): Client;
  /** A raw request; the answer's status, JSON (or text) body and the headers asked for. */
  http(
    method: string,
    pathname: string,
    options?: { body?: unknown; user?: string | null; headers?: Record<string, string>; keepHeaders?: string[] },
  ): Promise<Reply>;
  /** A raw SSE request: every event, in order, with its data parsed. */
  sse(method: string, pathname: string, body?: unknown, user?: string): Promise<{ status: number; events: { event: string; data: unknown }[] }>;
  /**
   * A POST to a stream that stays open (protocol v2's `…/stream/events`): its events as they
   * come, until `done` says so (or `timeoutMs`, which ends it with what came), then closed.
   */
  openStream(
    pathname: string,
    body: unknown,
    done: (event: { event: string; data: unknown }) => boolean,
    options?: { user?: string; timeoutMs?: number },
  ): Promise<{ status: number; events: { event: string; data: unknown }[]; timedOut: boolean; body?: unknown }>;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string | null>;
}

export function side(server: RunningServer): Side {
  return {
    name: server.name,
    url: server.url,
    client: (user = USER) => new Client({ apiUrl: server.url, defaultHeaders: bearer(user), callerOptions: { maxRetries: 0 } }),
    async http(method, pathname, options = {}) {
      const headers: Record<string, string> = { ...(options.user === null ? {} : bearer(options.user ?? USER)), ...options.headers };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(server.url + pathname, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: kept as text */
      }
      const reply: Reply = { status: res.status, body };
      if (options.keepHeaders) reply.headers = Object.fromEntries(options.keepHeaders.map((h) => [h, res.headers.get(h)]));
      return reply;
    },
    async sse(method, pathname, body, user = USER) {
      const res = await fetch(server.url + pathname, {
        method,
        headers: { ...bearer(user), accept: 'text/event-stream', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      return { status: res.status, events: parseSse(await res.text()) };
    },
    async openStream(pathname, body, done, options = {}) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 60_000);
      const res = await fetch(server.url + pathname, {
        method: 'POST',
        headers: { ...bearer(options.user ?? USER), accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
        clearTimeout(timer);
        const raw = await res.text();
        let parsed: unknown = raw;
        try {
          parsed = raw ? JSON.parse(raw) : null;
        } catch {
          /* kept as text */
        }
        return { status: res.status, events: [], timedOut: false, body: parsed };
      }
      const events: { event: string; data: unknown }[] = [];
      let text = '';
      let timedOut = false;
      try {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          text += decoder.decode(chunk, { stream: true });
          const cut = text.lastIndexOf('\n\n');
          if (cut < 0) continue;
          const fresh = parseSse(text.slice(0, cut));
          text = text.slice(cut + 2);
          events.push(...fresh);
          if (fresh.some(done)) break;
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
        timedOut = true;
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
      return { status: res.status, events, timedOut };
    },
  };
}

/** Server-sent events as sent (`id:` lines and comments dropped: ids are per-server). */
export function parseSse(text: string): { event: string; data: unknown }[] {
  const events: { event: string; data: unknown }[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (!data.length && event === 'message') continue;
    const raw = data.join('\n');
    let parsed: unknown = raw;
    try {
      parsed = raw ? JSON.parse(raw) : null;
    } catch {
      /* kept as text */
    }
    events.push({ event, data: parsed });
  }
  return events;
}

/** An SDK call's outcome: its value, or the error status and message it failed with. */
export async function outcome<T>(call: Promise<T> | (() => Promise<T>)): Promise<T | { error: { status: number | null; message: string } }> {
  try {
    return await (typeof call === 'function' ? call() : call);
  } catch (err) {
    const e = err as { status?: number; message?: string };
    return { error: { status: e.status ?? null, message: String(e.message ?? err) } };
  }
}

/** Drains an async iterable (an SDK stream) into a list. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
