// `http.app` of the project file: the project's own routes, served beside the API. The export
// is a Hono app (anything with `fetch(request)`, adapted by @hono/node-server) or a Node
// request handler `(req, res)`. The API's routes win: the app sees the requests the contract
// does not route (upstream's JS server lets the app shadow API paths; documented).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export async function loadCustomApp(spec: string, baseDir: string): Promise<NodeHandler> {
  const at = spec.lastIndexOf(':');
  const hasExport = at > 1;
  const file = path.resolve(baseDir, hasExport ? spec.slice(0, at) : spec);
  const exportName = hasExport ? spec.slice(at + 1) : 'default';
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (err) {
    throw new Error(`http.app: cannot import ${file}: ${(err as Error).message}`);
  }
  const app = (await module[exportName]) as { fetch?: unknown } | NodeHandler | undefined;
  if (app && typeof (app as { fetch?: unknown }).fetch === 'function') {
    const fetchApp = app as { fetch: (request: Request) => Response | Promise<Response> };
    return getRequestListener((request) => fetchApp.fetch(request));
  }
  if (typeof app === 'function') return app as NodeHandler;
  throw new Error(`http.app: ${file}:${exportName} is neither a Hono app (with fetch) nor a Node request handler`);
}
