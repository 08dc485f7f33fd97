// `auth.path` of the project file: an `Auth` object built with @langchain/langgraph-sdk/auth
// (the project's own copy). Its `authenticate` callback decides who calls; its `on(...)`
// handlers may refuse an action, change the value written, or return filters that every
// read and write of the resource must match — as on the upstream servers. Recognised by
// shape (`~handlerCache`), never by instanceof, so any SDK version works.
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { importProjectModule } from '../../shared/projectModule.ts';

export interface AuthUser {
  identity: string;
  permissions: string[];
  display_name: string;
  is_authenticated: boolean;
  [key: string]: unknown;
}

/** A filter on a resource's metadata: equality, `$eq`, or `$contains` (array membership). */
export type AuthFilters = Record<string, unknown>;

export type Refusal = { status: number; detail: string; headers?: Record<string, string>; refused: true };

export const isRefusal = (value: unknown): value is Refusal => typeof value === 'object' && value !== null && (value as Refusal).refused === true;
export type Authorized = { filters?: AuthFilters; value: unknown };

interface HandlerCache {
  authenticate?: (request: Request) => unknown;
  callbacks?: Record<string, (args: Record<string, unknown>) => unknown>;
}

export interface CustomAuth {
  authenticate(req: IncomingMessage, baseUrl: string): Promise<AuthUser | Refusal>;
  /** `event` is `resource:action` (threads:read, store:put, …). */
  authorize(event: string, value: unknown, user: AuthUser): Promise<Authorized | Refusal>;
}

export async function loadCustomAuth(spec: string, baseDir: string): Promise<CustomAuth> {
  const at = spec.lastIndexOf(':');
  const file = path.resolve(baseDir, at > 1 ? spec.slice(0, at) : spec);
  const exportName = at > 1 ? spec.slice(at + 1) : 'default';
  let module: Record<string, unknown>;
  try {
    module = await importProjectModule(file);
  } catch (err) {
    throw new Error(`auth.path: cannot import ${file}: ${(err as Error).message}`);
  }
  const auth = module[exportName] as Record<string, unknown> | undefined;
  if (!auth || typeof auth !== 'object' || !('~handlerCache' in auth)) {
    throw new Error(`auth.path: ${file}:${exportName} is not an Auth object from @langchain/langgraph-sdk/auth`);
  }
  const cache = () => auth['~handlerCache'] as HandlerCache;
  return {
    async authenticate(req, baseUrl) {
      const authenticate = cache().authenticate;
      if (!authenticate) return anonymous();
      try {
        return normaliseUser(await authenticate(toRequest(req, baseUrl)));
      } catch (err) {
        return refusal(err, 401);
      }
    },
    async authorize(event, value, user) {
      const [resource, action] = event.split(':');
      const callbacks = cache().callbacks ?? {};
      const key = [event, resource, `*:${action}`, '*'].find((k) => callbacks[k]);
      if (!key) return { value };
      try {
        const result = await callbacks[key]({ event, resource, action, value, permissions: user.permissions, user });
        if (result === undefined || result === null || result === true) return { value };
        if (result === false) return { status: 403, detail: 'Forbidden', refused: true };
        if (typeof result !== 'object')
          return { status: 500, detail: `The auth handler for ${event} returned ${typeof result}; expected filters, a boolean or nothing`, refused: true };
        return { filters: result as AuthFilters, value };
      } catch (err) {
        return refusal(err, 403);
      }
    },
  };
}

/** Whether a resource's metadata passes the filters an auth handler returned. */
export function matchesAuthFilters(metadata: Record<string, unknown> | undefined, filters: AuthFilters | undefined): boolean {
  if (!filters) return true;
  return Object.entries(filters).every(([key, wanted]) => {
    const actual = metadata && Object.hasOwn(metadata, key) ? metadata[key] : undefined;
    if (wanted && typeof wanted === 'object' && !Array.isArray(wanted)) {
      const { $eq, $contains } = wanted as { $eq?: unknown; $contains?: unknown };
      if ($eq !== undefined) return actual === $eq;
      if ($contains !== undefined) return Array.isArray(actual) && [$contains].flat().every((v) => actual.includes(v));
      return false;
    }
    return actual === wanted;
  });
}

/** Plain equality filters, which a metadata search can apply itself. */
export function equalityFilters(filters: AuthFilters | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, wanted] of Object.entries(filters ?? {})) {
    if (wanted === null || typeof wanted !== 'object') out[key] = wanted;
    else if ((wanted as { $eq?: unknown }).$eq !== undefined) out[key] = (wanted as { $eq: unknown }).$eq;
  }
  return out;
}

function toRequest(req: IncomingMessage, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return new Request(new URL(req.url ?? '/', baseUrl), { method: req.method, headers });
}

function normaliseUser(result: unknown): AuthUser {
  if (typeof result === 'string') return { identity: result, permissions: [], display_name: result, is_authenticated: true };
  const user = result as Partial<AuthUser> | null;
  if (!user || typeof user.identity !== 'string')
    throw Object.assign(new Error('authenticate must return a string or an object with an "identity"'), { status: 500 });
  const permissions = Array.isArray(user.permissions) ? user.permissions : [];
  return { ...user, identity: user.identity, permissions, display_name: user.display_name ?? user.identity, is_authenticated: user.is_authenticated ?? true };
}

function anonymous(): AuthUser {
  return { identity: '', permissions: [], display_name: '', is_authenticated: false };
}

function refusal(err: unknown, fallback: number): Refusal {
  const e = err as { status?: unknown; message?: string; headers?: Record<string, string> };
  if (typeof e?.status === 'number')
    return { status: e.status, detail: e.message || (e.status === 401 ? 'Unauthorized' : 'Forbidden'), headers: e.headers, refused: true };
  // a handler that crashes refuses (never admits by accident); the server log has the stack
  return { status: fallback, detail: `The auth handler failed: ${e?.message ?? String(err)}`, refused: true };
}
