// The API reference at /docs (swagger-ui-dist, served from node_modules, no network) and
// the specification documents themselves at stable URLs under /spec/.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { packagePath } from '../packageRoot.ts';
import { CONSOLE_DOCUMENTS, UNIQUE_MARKER, consoleDocuments, openRpcPage } from './apiConsole.ts';
import { FAVICON } from './favicon.ts';
import { withServerBase } from './servedSpec.ts';

const SPEC_DIR = packagePath('spec');
const SPEC_FILES: Record<string, { type: string; format: 'json' | 'text' }> = {
  'control-plane.openapi.yaml': { type: 'application/yaml', format: 'text' },
  'agent-server.openapi.yaml': { type: 'application/yaml', format: 'text' },
  'a2a.openrpc.json': { type: 'application/json', format: 'json' },
  // the agent server's document takes its A2A v1.0 HTTP+JSON bodies from here ($ref './a2a-v1.openrpc.json#/…')
  'a2a-v1.openrpc.json': { type: 'application/json', format: 'json' },
  'protocol.openrpc.json': { type: 'application/json', format: 'json' },
};
const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.html': 'text/html',
  '.map': 'application/json',
};

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>agentplane API reference</title>
  <link rel="icon" href="/favicon.ico">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <p style="font: 14px system-ui, sans-serif; margin: .5rem 1rem">A2A JSON-RPC (OpenRPC): <a href="/docs/a2a">methods</a> · documents: <a href="/spec/control-plane.openapi.yaml">control plane</a>, <a href="/spec/agent-server.openapi.yaml">agent server</a>, <a href="/spec/a2a.openrpc.json">A2A</a></p>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;
const INIT_JS = `window.ui = SwaggerUIBundle({
  urls: [
    { url: '/docs/console/control-plane.json', name: 'Control plane' },
    { url: '/docs/console/agent-server.json', name: 'Agent server' }
  ],
  dom_id: '#reference',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  // a create example's unique value (a deployment name, a provider id) is new in every request sent
  requestInterceptor: (request) => {
    if (typeof request.body === 'string') request.body = request.body.split(${JSON.stringify(UNIQUE_MARKER)}).join('-' + Math.random().toString(36).slice(2, 10));
    return request;
  }
});
`;

// an answer that names the address the client used: a cache must not answer another address with it
const VARY_ADDRESS = { Vary: 'Host, Forwarded, X-Forwarded-Host, X-Forwarded-Proto' };

/** `baseUrl` gives the address of this server as the request's client sees it (the documents under /spec/ name it). */
export function createDocsRoutes(baseUrl: (req: IncomingMessage) => string): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  const assetsDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  const reply = (res: ServerResponse, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'public, max-age=300', ...headers });
    res.end(body);
    return true;
  };
  return (req, res, pathname) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (pathname === '/docs' || pathname === '/docs/') return reply(res, 'text/html; charset=utf-8', INDEX_HTML);
    if (pathname === '/docs/init.js') return reply(res, 'text/javascript', INIT_JS);
    if (pathname === '/favicon.ico') return reply(res, 'image/x-icon', FAVICON);
    if (pathname === '/docs/a2a') return reply(res, 'text/html; charset=utf-8', openRpcPage());
    if (pathname.startsWith('/docs/console/')) {
      const name = pathname.slice('/docs/console/'.length);
      if (!(CONSOLE_DOCUMENTS as readonly string[]).includes(name)) return false;
      // the documents' modules load at the console's first read (apiConsole.ts), so the reply follows them
      void consoleDocuments().then(
        // the examples that carry an address (agent cards) show this server's, as /spec/ does
        (documents) => reply(res, 'application/json', withServerBase(documents[name], baseUrl(req), 'json'), VARY_ADDRESS),
        () => {
          res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end('the API documents could not be loaded');
        },
      );
      return true;
    }
    if (pathname.startsWith('/docs/assets/')) {
      const name = pathname.slice('/docs/assets/'.length);
      // one file name, never a dot segment (`..` would name the folder itself: EISDIR)
      if (!/^[\w.-]+$/.test(name) || /^\.+$/.test(name)) return false;
      const file = path.join(assetsDir, name);
      if (!cache.has(name)) {
        if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return false;
        cache.set(name, fs.readFileSync(file));
      }
      return reply(res, ASSET_TYPES[path.extname(name)] ?? 'application/octet-stream', cache.get(name)!);
    }
    if (pathname.startsWith('/spec/')) {
      const name = pathname.slice('/spec/'.length);
      const file = SPEC_FILES[name];
      if (!file) return false;
      const text = withServerBase(fs.readFileSync(path.join(SPEC_DIR, name), 'utf8'), baseUrl(req), file.format);
      return reply(res, `${file.type}; charset=utf-8`, text, VARY_ADDRESS);
    }
    return false;
  };
}
