// Builds the dashboard (ui/) into dist/ui, served by agentplane at /dashboard. Preact through its
// official Vite preset: a small, well-kept stack whose output is one script and one style
// sheet, nothing fetched at run time.
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';
import { loadDocument as loadControlPlane } from '../generated/control-plane/document.gen.js';
import { loadDocument as loadAgentServer } from '../generated/agent-server/document.gen.js';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * `virtual:spec`: what the dashboard needs from the spec, read at build time from the
 * generated documents (the same spec the server was generated from) — the list of
 * operations (so pages can tell whether this server has an operation at all) and the
 * control plane's schemas (the forms are derived from them).
 */
function specModule(): Plugin {
  const id = 'virtual:spec';
  return {
    name: 'agentplane-spec',
    resolveId: (source) => (source === id ? '\0' + id : undefined),
    load(resolved) {
      if (resolved !== '\0' + id) return undefined;
      const controlPlane = loadControlPlane();
      const agentServer = loadAgentServer();
      const operations: string[] = [];
      for (const doc of [controlPlane, agentServer]) {
        for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
          for (const method of METHODS) if (item[method]) operations.push(`${method.toUpperCase()} ${path}`);
        }
      }
      return `export const operations = ${JSON.stringify(operations)};\nexport const controlPlaneSchemas = ${JSON.stringify(controlPlane.components.schemas)};\n`;
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  plugins: [preact(), specModule()],
  build: { outDir: '../dist/ui', emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: 2000 },
  logLevel: 'warn',
});
