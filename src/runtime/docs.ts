// The API reference at /docs (swagger-ui-dist, served from node_modules, no network) and
// the specification documents themselves at stable URLs under /spec/.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { packagePath } from './packageRoot.ts';
import { consoleDocuments, openRpcPage } from './apiConsole.ts';

const SPEC_DIR = packagePath('spec');
const SPEC_FILES: Record<string, string> = {
  'control-plane.openapi.yaml': 'application/yaml',
  'agent-server.openapi.yaml': 'application/yaml',
  'a2a.openrpc.json': 'application/json',
};
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.html': 'text/html', '.map': 'application/json' };

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>agentplane API reference</title>
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
  layout: 'StandaloneLayout'
});
`;

export function createDocsRoutes(): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  const assetsDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  const reply = (res: ServerResponse, type: string, body: string | Buffer) => {
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'public, max-age=300' });
    res.end(body);
    return true;
  };
  return (req, res, pathname) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (pathname === '/docs' || pathname === '/docs/') return reply(res, 'text/html; charset=utf-8', INDEX_HTML);
    if (pathname === '/docs/init.js') return reply(res, 'text/javascript', INIT_JS);
    if (pathname === '/docs/a2a') return reply(res, 'text/html; charset=utf-8', openRpcPage());
    if (pathname.startsWith('/docs/console/')) {
      const document = consoleDocuments()[pathname.slice('/docs/console/'.length)];
      return document === undefined ? false : reply(res, 'application/json', document);
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
      const type = SPEC_FILES[name];
      if (!type) return false;
      return reply(res, `${type}; charset=utf-8`, fs.readFileSync(path.join(SPEC_DIR, name)));
    }
    return false;
  };
}
