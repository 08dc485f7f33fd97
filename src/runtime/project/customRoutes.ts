// `http.app` of the project file: the project's own routes, served beside the API. The export
// is a Hono app (anything with `fetch(request)`, adapted by @hono/node-server) or a Node
// request handler `(req, res)`. The API's routes win: the app's routes see the requests the
// contract does not route (upstream's JS server lets the app shadow API paths; documented),
// and a path neither knows is 404 — the app's own notFound handler is not asked, as upstream
// mounts the app's routes, not its notFound. A Hono app's middleware (`app.use(...)`) wraps
// the API's routes too, as upstream: it may set headers, answer in the API's place, or
// rewrite a request's JSON body before the API reads it.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { importProjectModule } from '../../shared/projectModule.ts';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface CustomApp {
  /** Answers what the API does not route: the app's routes, else 404. */
  routes: NodeHandler;
  /**
   * The app's middleware around an API request, which then reaches the API again with
   * `innerRequest` marking it; absent when the app has no middleware (or is a Node handler).
   */
  around?: NodeHandler;
  /** Whether a request is the API call the middleware passed on (answered by the API itself). */
  innerRequest(req: IncomingMessage): boolean;
}

/** The parts of a Hono app this module uses (the project's own Hono, whatever its version). */
interface HonoLike {
  fetch(request: Request): Response | Promise<Response>;
  routes: { method: string; path: string; handler: (...args: unknown[]) => unknown }[];
  route(path: string, app: HonoLike): HonoLike;
  all(path: string, handler: (...args: unknown[]) => unknown): HonoLike;
  notFound(handler: (c: unknown) => Response): HonoLike;
  errorHandler?: unknown;
}

type HonoContext = { req: { raw: Request; bodyCache: Record<string, Promise<unknown> | undefined> }; res: Response; env?: { outgoing?: ServerResponse } };

/** Marks the API call a middleware passed on; a random value, so no client can send it. */
const INNER_HEADER = 'x-agentplane-inner';
/**
 * The client's request id, carried to the API call a middleware passed on. Not `x-request-id`:
 * a run stamps the caller's own `x-*` headers on its configurable, as upstream does, and this
 * id is agentplane's, not the caller's (x-agentplane-* headers never reach a run).
 */
export const INNER_REQUEST_ID_HEADER = 'x-agentplane-request-id';
/** The client's Host, carried to the API call a middleware passed on (the loopback call has its own). */
const INNER_HOST_HEADER = 'x-agentplane-host';

/**
 * An API call a middleware passed on names the client's Host again, so what the API builds
 * from it (generative UI tags, agent cards) names the host the client reached, not loopback.
 */
export function restoreClientHost(req: IncomingMessage): void {
  const host = req.headers[INNER_HOST_HEADER];
  if (typeof host === 'string' && host) req.headers.host = host;
  delete req.headers[INNER_HOST_HEADER];
}

export interface CustomAppOptions {
  /** This server's own URL, where middleware-wrapped API calls go on to (loopback). */
  serverUrl: () => string | undefined;
}

export async function loadCustomApp(spec: string, baseDir: string, options: CustomAppOptions): Promise<CustomApp> {
  const at = spec.lastIndexOf(':');
  const hasExport = at > 1;
  const file = path.resolve(baseDir, hasExport ? spec.slice(0, at) : spec);
  const exportName = hasExport ? spec.slice(at + 1) : 'default';
  let module: Record<string, unknown>;
  try {
    module = await importProjectModule(file);
  } catch (err) {
    throw new Error(`http.app: cannot import ${file}: ${(err as Error).message}`);
  }
  const app = (await module[exportName]) as { fetch?: unknown } | NodeHandler | undefined;
  // the Hono adapter (~30 ms of loading) only for a project that has an app to serve
  const { getRequestListener } = await import('@hono/node-server');
  const listen = (app: HonoLike): NodeHandler => getRequestListener((request) => app.fetch(request));
  const token = randomUUID();
  const innerRequest = (req: IncomingMessage) => req.headers[INNER_HEADER] === token;
  if (app && typeof (app as { fetch?: unknown }).fetch === 'function') {
    const hono = app as HonoLike;
    if (!Array.isArray(hono.routes) || typeof hono.route !== 'function') {
      const fetchApp = hono;
      return { routes: getRequestListener((request) => fetchApp.fetch(request)), innerRequest };
    }
    return { routes: listen(routesOnly(hono)), around: aroundApi(hono, token, options, listen), innerRequest };
  }
  if (typeof app === 'function') return { routes: app as NodeHandler, innerRequest };
  throw new Error(`http.app: ${file}:${exportName} is neither a Hono app (with fetch) nor a Node request handler`);
}

/** A fresh app of the project's own Hono class. */
const fresh = (app: HonoLike): HonoLike => new (app.constructor as new () => HonoLike)();

const notFound = () => Response.json({ detail: 'Not Found' }, { status: 404 });

/** The app mounted in one of its own kind, whose notFound is the API's 404. */
function routesOnly(app: HonoLike): HonoLike {
  return fresh(app).route('/', app).notFound(notFound);
}

/** `use(...)` entries: registered for every method, taking `next` (a route handler does not). */
const isMiddleware = (route: HonoLike['routes'][number]) => route.method === 'ALL' && route.handler.length >= 2;

function aroundApi(app: HonoLike, token: string, options: CustomAppOptions, listen: (app: HonoLike) => NodeHandler): NodeHandler | undefined {
  const middleware = app.routes.filter(isMiddleware);
  if (middleware.length === 0) return undefined;
  const wrapped = fresh(app);
  if (app.errorHandler) wrapped.errorHandler = app.errorHandler;
  wrapped.all('*', shareParsedJson);
  for (const route of middleware) wrapped.all(route.path, route.handler);
  wrapped.all('*', (c) => forwardToApi(c as HonoContext, token, options));
  return listen(wrapped);
}

/** The object `c.req.json()` gave the middleware, per request. */
const parsedJson = new WeakMap<object, Promise<unknown>>();

/**
 * Every `c.req.json()` of a request answers the same object (as Hono did before 4.x cached
 * only the text), so a middleware that changes the object it read changes the body the API
 * gets — the way upstream's own tests rewrite run requests.
 */
async function shareParsedJson(c: unknown, next: unknown): Promise<void> {
  const req = (c as HonoContext).req as HonoContext['req'] & { json(): Promise<unknown> };
  const read = req.json.bind(req);
  req.json = () => {
    let parsed = parsedJson.get(req);
    if (!parsed) parsedJson.set(req, (parsed = read()));
    return parsed;
  };
  await (next as () => Promise<void>)();
}

/**
 * The API call at the end of the middleware chain: the request as the middleware left it, sent
 * to this server again over loopback (streams included), answered as a mutable Response so
 * middleware after `next()` can still set headers.
 */
async function forwardToApi(c: HonoContext, token: string, options: CustomAppOptions): Promise<Response> {
  const base = options.serverUrl();
  if (!base) throw new Error('http.app middleware: the server does not listen yet');
  const original = c.req.raw;
  const url = new URL(original.url);
  const headers = new Headers(original.headers);
  headers.set(INNER_HEADER, token);
  // one request id for the client's request, whichever side answers it
  const requestId = c.env?.outgoing?.getHeader('X-Request-Id');
  if (requestId) headers.set(INNER_REQUEST_ID_HEADER, String(requestId));
  headers.set(INNER_HOST_HEADER, original.headers.get('host') ?? url.host);
  for (const name of ['connection', 'content-length', 'transfer-encoding', 'keep-alive']) headers.delete(name);
  const body = await bodyAsLeft(c);
  const answer = await fetch(new URL(url.pathname + url.search, base), { method: original.method, headers, body, signal: original.signal, redirect: 'manual' });
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: new Headers(answer.headers) });
}

/**
 * The body the middleware left: the JSON object it read (and perhaps changed), else what it
 * read as text or bytes, else the request's own (possibly replaced) body.
 */
async function bodyAsLeft(c: HonoContext): Promise<string | ArrayBuffer | undefined> {
  const { raw, bodyCache } = c.req;
  if (raw.method === 'GET' || raw.method === 'HEAD') return undefined;
  const parsed = parsedJson.get(c.req) ?? bodyCache?.json;
  if (parsed) return JSON.stringify(await parsed);
  if (bodyCache?.text) return (await bodyCache.text) as string;
  if (bodyCache?.arrayBuffer) return (await bodyCache.arrayBuffer) as ArrayBuffer;
  return raw.body ? await raw.arrayBuffer() : undefined;
}
