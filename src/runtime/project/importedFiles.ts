// What the project's code actually loaded, for `agentplane dev`: a reload should follow the files
// the graphs, auth, http.app and UI modules import, not every script-looking file in the folder
// (a graph that writes a .json or .ts file there on each run would otherwise reload forever).
// ES modules — plain, or through tsx's global or namespaced loaders — are seen by a module
// loading hook registered once, before the project loads: registered last, it runs first in
// the hook chain, and tsx's own hooks pass their loads down to it. CommonJS modules required
// by CommonJS modules never reach those hooks; Node keeps them in require.cache. Bundled UI
// modules never reach Node at all: their bundler reports its inputs through `note`.
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

// runs in Node's loader thread: every file: URL loaded is posted to the main thread; a message
// sent back is echoed, so the main thread knows when all loads before it have arrived
const HOOKS = `
let port;
export function initialize(data) { port = data.port; port.on('message', (m) => port.postMessage(m)); }
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) port.postMessage(url);
  return nextLoad(url, context);
}`;

const require = createRequire(import.meta.url);
const loaded = new Set<string>();
let port: MessagePort | undefined;
let flushes = 0;

/** Starts recording loaded files; call before the project's modules are imported. Idempotent. */
export function trackImports(): void {
  if (port) return;
  const channel = new MessageChannel();
  port = channel.port1;
  port.on('message', (message: unknown) => {
    if (typeof message === 'string') loaded.add(fileURLToPath(message.replace(/[?#].*$/, '')));
  });
  port.unref();
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { port: channel.port2 }, transferList: [channel.port2] });
}

/** Records files loaded some other way (the UI bundler's inputs). */
export function noteImported(files: Iterable<string>): void {
  for (const file of files) loaded.add(file);
}

/** Resolves once every load posted so far has been recorded. */
export async function settleImports(): Promise<void> {
  const current = port;
  if (!current) return;
  const id = { flush: ++flushes };
  await new Promise<void>((resolve) => {
    const onEcho = (message: unknown) => {
      if ((message as typeof id)?.flush !== id.flush) return;
      current.off('message', onEcho);
      resolve();
    };
    current.on('message', onEcho);
    current.postMessage(id);
  });
}

/** Whether the running process loaded `file` (absolute) as a module or bundle input. */
export function wasImported(file: string): boolean {
  return loaded.has(file) || file in require.cache;
}
