// The test files and every TypeScript module they import, compiled by esbuild into plain
// JavaScript under .cache/test-js (the repository's layout, `.js` for `.ts`), so that a test
// process runs without tsx's loader hooks. On Node 20 those hooks run on a thread of their
// own and every module a process loads costs a round trip to it: a test process that
// imports the server spent ~4.5 CPU-s before its first test through them, ~1.7 CPU-s as plain
// JavaScript (`node -e "await import(...)"`, alternated), and most test files are short.
//
// src/ is compiled whole and runs as the compiled build in dist/ does (its modules end in
// .js): run workers start from runWorker.js, a project's TypeScript graphs register tsx when
// they load (src/shared/projectModule.ts). A test module (and any other outside src/) sees
// its source's own location in `import.meta.url`, dirname and filename, so the paths it
// builds from them (the repository's root, fixtures, a child server's entry) are the
// repository's, and a child process started from the sources runs through tsx as before.
// Each module is compiled alone, by esbuild as tsx does, with the same tsconfig; its imports
// of the repository's TypeScript modules point at their compiled copies, every other import
// (a library, a generated .js file, JSON) at the original.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where each run's compiled copies go: `<COMPILED_TESTS>/<run>/<path in the repository>`, `.js` for `.ts`. */
export const COMPILED_TESTS = path.join(ROOT, '.cache', 'test-js');

const SOURCES = path.join(ROOT, 'src') + path.sep;
/** The names a module outside src/ finds its source's location under (see the onLoad below). */
const HERE = { url: '__sourceUrl', dirname: '__sourceDirname', filename: '__sourceFilename' };
const TYPESCRIPT = /\.(c|m)?tsx?$/;
const isOurs = (file: string) => file.startsWith(ROOT + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`) && !file.startsWith(COMPILED_TESTS);
const relativeSpecifier = (from: string, to: string) => {
  const relative = path.relative(path.dirname(from), to).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

/**
 * Compiles `entries` (absolute paths), every TypeScript module of the repository they import,
 * directly or not, and src/ into a new folder `out` under COMPILED_TESTS (one per run: two
 * runs side by side never share one); returns the compiled paths of `entries`.
 */
export async function compileTests(entries: string[], out: string): Promise<string[]> {
  if (!out.startsWith(COMPILED_TESTS + path.sep)) throw new Error(`compiled tests go under ${COMPILED_TESTS}, not ${out}`);
  fs.rmSync(out, { recursive: true, force: true });
  /** A module's compiled copy. */
  const compiledPath = (source: string): string => path.join(out, path.relative(ROOT, source)).replace(TYPESCRIPT, '.js');
  // all of src/, its worker entries (never imported) included
  const sources = fs
    .readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(SOURCES, f))
    .filter((f) => TYPESCRIPT.test(f) && !f.endsWith('.d.ts'));
  const seen = new Set([...sources, ...entries]);
  let wave = [...seen];
  while (wave.length > 0) {
    const found: string[] = [];
    const imports: Plugin = {
      name: 'compiled-tests',
      setup(b) {
        b.onResolve({ filter: /.*/ }, async (args) => {
          if (args.kind === 'entry-point' || args.pluginData === 'inner') return undefined;
          // a library stays a library (its own name, resolved by node), unless tsconfig's
          // paths name one of ours (agentplane-server/auth)
          const local = args.path.startsWith('.') || path.isAbsolute(args.path);
          if (args.path.startsWith('node:')) return { external: true };
          const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' });
          if (resolved.errors.length > 0 || !resolved.path || !isOurs(resolved.path)) {
            if (local && resolved.path) return { path: pathToFileURL(resolved.path).href, external: true };
            return { external: true };
          }
          if (!TYPESCRIPT.test(resolved.path) || resolved.path.endsWith('.d.ts')) return { path: pathToFileURL(resolved.path).href, external: true };
          if (!seen.has(resolved.path)) {
            seen.add(resolved.path);
            found.push(resolved.path);
          }
          return { path: relativeSpecifier(compiledPath(args.importer), compiledPath(resolved.path)), external: true };
        });
        // the source's own location, not the copy's, wherever it asks where it is
        b.onLoad({ filter: TYPESCRIPT }, async (args) => {
          const source = await fs.promises.readFile(args.path, 'utf8');
          const loader = args.path.endsWith('x') ? 'tsx' : 'ts';
          if (args.path.startsWith(SOURCES)) return { contents: source, loader };
          // read by `define` below in place of import.meta's (an import is hoisted above it)
          const where = `const ${HERE.url} = ${JSON.stringify(pathToFileURL(args.path).href)}, ${HERE.dirname} = ${JSON.stringify(path.dirname(args.path))}, ${HERE.filename} = ${JSON.stringify(args.path)};`;
          return { contents: `${where}\n${source}`, loader };
        });
      },
    };
    // src/ as it is; every other module with import.meta's location replaced (in its code, not its strings)
    const [sources, others] = [wave.filter((f) => f.startsWith(SOURCES)), wave.filter((f) => !f.startsWith(SOURCES))];
    for (const [entryPoints, define] of [
      [sources, {}],
      [others, Object.fromEntries(Object.entries(HERE).map(([key, name]) => [`import.meta.${key}`, name]))],
    ] as const) {
      if (entryPoints.length === 0) continue;
      await build({
        entryPoints: [...entryPoints],
        define,
        outdir: out,
        outbase: ROOT,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        tsconfig: path.join(ROOT, 'tsconfig.json'),
        plugins: [imports],
        logLevel: 'error',
        sourcemap: 'inline',
        sourcesContent: false,
        write: true,
      });
    }
    wave = found;
  }
  return entries.map(compiledPath);
}

/** Removes the folders a run keeps under `dir` by its pid (its compiled copies, its entry files) when that run is gone (killed before it could). */
export function removeLeftCompilations(dir = COMPILED_TESTS): void {
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
