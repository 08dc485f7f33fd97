// The server's entry point bundled (`npm run build`'s last step before the swap): tsc's
// dist/src/cli/main.js and the ~300 modules it imports become a handful of ES modules in
// dist/bundle/, which bin/agentplane.js runs. Each module Node's ESM loader resolves, reads,
// links and evaluates costs it ~0.3–0.45 ms besides the module's own code, and a start loaded
// ~300 of agentplane's before its first 200 (scripts/bench/findings.md, issue 86).
//
// - `splitting`: every `import()` stays lazy (a chunk of its own, loaded at the call), so what a
//   start defers (the control plane's handlers, the deploy targets, the tables loaded at their
//   first request, the CLI's other commands) is still deferred.
// - Packages stay external: they resolve from node_modules as before, one instance each, shared
//   with the project's graphs.
// - `import.meta.url` is rewritten in each module to the URL of its file in dist/src (kept beside
//   the bundle): the worker entries (`new URL('./runWorker.js', import.meta.url)`), packageRoot,
//   `createRequire(import.meta.url)` and the static schema files resolve as they did unbundled.
//   The run workers, the SDK export (`agentplane-server/auth`) and the conformance suite still
//   run tsc's files.
// - `inputs.json` says which of dist/'s files each output holds (test/support/recordLoads.mjs
//   reads it, so the start-loads tests still see which modules a start evaluated).
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

/** Where the bundle goes inside a dist folder. */
export const BUNDLE_DIR = 'bundle';

/** `import.meta.url` as an expression, not inside a string (projectCompile's esbuild `define` names it as a key). */
export const IMPORT_META_URL = /(?<![\w$.'"`])import\.meta\.url(?![\w$'"`])/g;

const importMetaUrl = (outdir: string): esbuild.Plugin => ({
  name: 'import-meta-url-of-the-source',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const code = await fs.promises.readFile(args.path, 'utf8');
      if (!code.includes('import.meta.url')) return { contents: code, loader: 'js' };
      // one flat output folder: the same relative path from every chunk
      const relative = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: code.replace(IMPORT_META_URL, `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: 'js' };
    });
  },
});

/** Bundles `dist`/`entry` (the server's) into `dist`/bundle/ (main.js and its chunks, all in one folder). */
export async function bundleServer(dist: string, entry = 'src/cli/main.js'): Promise<void> {
  const outdir = path.join(dist, BUNDLE_DIR);
  const result = await esbuild.build({
    entryPoints: { main: path.join(dist, entry) },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
    plugins: [importMetaUrl(outdir)],
  });
  const inputs: Record<string, string[]> = {};
  for (const [output, { inputs: held }] of Object.entries(result.metafile.outputs)) {
    const file = path.relative(outdir, path.resolve(output)).split(path.sep).join('/');
    inputs[file] = Object.keys(held).map((input) => path.relative(dist, path.resolve(input)).split(path.sep).join('/'));
  }
  fs.writeFileSync(path.join(outdir, 'inputs.json'), JSON.stringify(inputs));
}
