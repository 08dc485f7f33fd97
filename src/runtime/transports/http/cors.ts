// CORS for browsers talking to the server directly (agent-chat-ui, Studio-like tools, the
// dashboard of another origin). Configured by the project file's `http.cors` in upstream's
// keys; without it, loopback origins (http://localhost:*, http://127.0.0.1:*, http://[::1]:*)
// are allowed, as a dev server should. Preflight is answered on every path, API or not.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface CorsSettings {
  allow_origins?: string[];
  allow_origin_regex?: string;
  allow_methods?: string[];
  allow_headers?: string[];
  allow_credentials?: boolean;
  expose_headers?: string[];
  max_age?: number;
}

const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
/** Headers clients read from agentplane's answers (run location, paging). */
const EXPOSED = ['Content-Location', 'X-Pagination-Total', 'X-Pagination-Next', 'Location'];
const ALL_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/** Sets the CORS headers of an answer; resolves true when it answered a preflight itself. */
export type CorsHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

export function corsHandler(settings: CorsSettings | undefined): CorsHandler {
  const configured = settings !== undefined;
  const origins = new Set(settings?.allow_origins ?? []);
  const anyOrigin = origins.has('*');
  const pattern = settings?.allow_origin_regex ? new RegExp(`^(?:${settings.allow_origin_regex})$`) : undefined;
  // the loopback default lets the dashboard of a dev tool on another port send credentials
  const credentials = configured ? (settings.allow_credentials ?? false) : true;
  const methods = settings?.allow_methods?.length && !settings.allow_methods.includes('*') ? settings.allow_methods.join(', ') : ALL_METHODS;
  const headers = settings?.allow_headers?.length && !settings.allow_headers.includes('*') ? settings.allow_headers.join(', ') : undefined;
  const expose = [...new Set([...EXPOSED, ...(settings?.expose_headers ?? [])])].join(', ');
  const maxAge = String(settings?.max_age ?? 600);
  const allowed = (origin: string) => (configured ? anyOrigin || origins.has(origin) || (pattern?.test(origin) ?? false) : LOOPBACK.test(origin));

  return (req, res) => {
    const origin = req.headers.origin;
    if (!origin) return false;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!allowed(origin)) {
      if (!preflight) return false;
      res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ detail: `Origin ${origin} is not allowed (http.cors in the project file)` }));
      return true;
    }
    // a wildcard is only valid without credentials; otherwise the origin is echoed
    res.setHeader('Access-Control-Allow-Origin', anyOrigin && !credentials ? '*' : origin);
    res.setHeader('Vary', 'Origin');
    if (credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (!preflight) {
      res.setHeader('Access-Control-Expose-Headers', expose);
      return false;
    }
    res.setHeader('Access-Control-Allow-Methods', methods);
    res.setHeader('Access-Control-Allow-Headers', headers ?? String(req.headers['access-control-request-headers'] ?? ''));
    res.setHeader('Access-Control-Max-Age', maxAge);
    res.writeHead(204).end();
    return true;
  };
}
