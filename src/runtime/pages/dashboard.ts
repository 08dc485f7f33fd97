// The web dashboard at /dashboard: static assets built by Vite from ui/ into dist/ui (on `npm
// install` through `prepare`, or `npm run build`), served from disk like /docs serves
// swagger-ui — no CDN, no network. Every other /dashboard/... path answers the app's
// index.html, so the dashboard's own routes can be bookmarked and reloaded. `/` redirects to
// /dashboard/, and so does `/ui` (where the dashboard used to live; `/ui/{agent}/...` belongs to
// generative UI, as upstream, but `/ui` alone is no upstream path, so old bookmarks still land).
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { packagePath } from '../packageRoot.ts';

export const DASHBOARD_DIR = packagePath('dist', 'ui');
/** Where the dashboard is served; ui/vite.config.ts builds for the same base. */
const BASE = '/dashboard';
const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};
const NOT_BUILT = 'The dashboard is not built. Run `npm run build` (npm install does it too), then reload.\n';

/** The page says which mode serves it (the app shows a banner in mock mode: its answers are examples). */
const MODE_TAG = '<meta name="agentplane-mode" content="real" />';

export function createDashboardRoutes(options: {
  redirectRoot: boolean;
  mock?: boolean;
  dir?: string;
}): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  const dir = options.dir ?? DASHBOARD_DIR;
  const withMode = (html: Buffer) => (options.mock ? Buffer.from(html.toString('utf8').replace(MODE_TAG, MODE_TAG.replace('real', 'mock'))) : html);
  return (req, res, pathname) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if ((pathname === '/' && options.redirectRoot) || pathname === '/ui' || pathname === '/ui/') {
      res.writeHead(302, { Location: `${BASE}/`, 'Content-Length': 0 });
      res.end();
      return true;
    }
    if (pathname !== BASE && !pathname.startsWith(`${BASE}/`)) return false;
    if (pathname.startsWith(`${BASE}/assets/`)) {
      const name = pathname.slice(`${BASE}/assets/`.length);
      if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) return false;
      // hashed file names: a build never changes a file under the same name
      return sendFile(res, path.join(dir, 'assets', name), TYPES[path.extname(name)] ?? 'application/octet-stream', 'public, max-age=31536000, immutable');
    }
    if (sendFile(res, path.join(dir, 'index.html'), 'text/html; charset=utf-8', 'no-cache', withMode)) return true;
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(NOT_BUILT) });
    res.end(NOT_BUILT);
    return true;
  };
}

function sendFile(res: ServerResponse, file: string, type: string, cache: string, transform: (body: Buffer) => Buffer = (body) => body): boolean {
  let body: Buffer;
  try {
    body = transform(fs.readFileSync(file));
  } catch {
    return false;
  }
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': cache });
  res.end(body);
  return true;
}
