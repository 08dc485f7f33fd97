// The globals the upstream server sets for a project's code (graphs, http.app routes, auth),
// found through `Symbol.for` so whichever copy of the SDK the project has sees them:
//   langgraph.api.sdk-logger — what `getLogger()` of `@langchain/langgraph-sdk/logging` returns;
//   langgraph_api:fetch — the fetch `new Client()` uses when given no URL; upstream hands the
//     request to its app in process, here it goes to this server over loopback, whatever the
//     host the client named (its default is http://localhost:8123);
//   langgraph_api:url — the default URL of such a client: this server's own.
// Set in every thread that runs project code (the main thread and each run worker) before the
// project is imported, since projects call getLogger() at the top of a module.

const LOGGER = Symbol.for('langgraph.api.sdk-logger');
const FETCH = Symbol.for('langgraph_api:fetch');
const API_URL = Symbol.for('langgraph_api:url');
// Where @langchain/core keeps the context a LangGraph node runs in: its async-local storage
// under a global symbol (set by whichever copy of core runs the graph), the node's config under
// another. Read here through the symbols rather than core's AsyncLocalStorageProviderSingleton,
// whose import loads ~160 modules of core and langsmith before the server can listen; a
// server that runs no LangGraph graph never loads them, and none but core sets the storage.
const TRACING_STORAGE = Symbol.for('ls:tracing_async_local_storage');
const NODE_CONFIG = Symbol.for('lc:child_config');

type Globals = { [LOGGER]?: unknown; [FETCH]?: typeof fetch; [API_URL]?: string; [TRACING_STORAGE]?: unknown };
const globals = globalThis as unknown as Globals;

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogSink = (level: LogLevel, message: string, fields: Record<string, unknown>) => void;

/** Winston's level names (the SDK's Logger type) onto the server's levels. */
const LEVELS: Record<string, LogLevel> = {
  error: 'error',
  warn: 'warn',
  help: 'info',
  data: 'info',
  info: 'info',
  prompt: 'info',
  http: 'info',
  input: 'info',
  verbose: 'debug',
  debug: 'debug',
  silly: 'debug',
};

export interface ProjectGlobalsOptions {
  log: LogSink;
  /** This server's base URL, once it listens (run workers ask the main thread). */
  apiUrl: () => string | undefined | Promise<string | undefined>;
}

export function installProjectGlobals(options: ProjectGlobalsOptions): void {
  globals[LOGGER] = sdkLogger(options.log);
  globals[FETCH] = loopbackFetch(options.apiUrl);
}

/** The URL clients without one reach; set once the server listens (or a worker learns it). */
export function setProjectApiUrl(url: string): void {
  globals[API_URL] = url;
}

export function projectApiUrl(): string | undefined {
  return globals[API_URL];
}

function sdkLogger(sink: LogSink): Record<string, (...args: unknown[]) => unknown> {
  const logger: Record<string, (...args: unknown[]) => unknown> = {};
  for (const [name, level] of Object.entries(LEVELS)) {
    logger[name] = (first: unknown, ...rest: unknown[]) => {
      const [message, fields] = entry(first, rest);
      // as upstream: a line logged inside a node says which node
      const node = runnableConfig()?.metadata?.langgraph_node;
      sink(level, message, node === undefined ? fields : { langgraph_node: node, ...fields });
      return logger;
    };
  }
  return logger;
}

/** `(message, ...meta)` or `(infoObject)`, as winston takes them. */
function entry(first: unknown, rest: unknown[]): [string, Record<string, unknown>] {
  const fields: Record<string, unknown> = {};
  for (const meta of rest) {
    if (meta instanceof Error) Object.assign(fields, { err: { name: meta.name, message: meta.message, stack: meta.stack } });
    else if (meta && typeof meta === 'object') Object.assign(fields, meta);
    else if (meta !== undefined) ((fields.args as unknown[]) ??= []).push(meta);
  }
  if (first instanceof Error) return [first.message, { ...fields, err: { name: first.name, stack: first.stack } }];
  if (first && typeof first === 'object') {
    const { message, ...more } = first as Record<string, unknown>;
    return [typeof message === 'string' ? message : '', { ...more, ...fields }];
  }
  return [String(first), fields];
}

function loopbackFetch(apiUrl: ProjectGlobalsOptions['apiUrl']): typeof fetch {
  return async (input, init) => {
    const base = await apiUrl();
    if (!base) throw new Error('The agent server is not listening yet: a client without a URL can reach it once it is.');
    const asked = new URL(input instanceof Request ? input.url : String(input), base);
    const target = new URL(asked.pathname + asked.search, base);
    return input instanceof Request ? fetch(new Request(target, input), init) : fetch(target, init);
  };
}

/** The config of the LangGraph node this code runs in, as core's getRunnableConfig() reads it; undefined outside one. */
function runnableConfig(): { metadata?: Record<string, unknown> } | undefined {
  const storage = globals[TRACING_STORAGE] as { getStore(): { extra?: Record<symbol, unknown> } | undefined } | undefined;
  return storage?.getStore()?.extra?.[NODE_CONFIG] as { metadata?: Record<string, unknown> } | undefined;
}
