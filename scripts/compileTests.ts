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
// Each module is compiled alone, by esbuild's transform as tsx does, with the same tsconfig;
// its imports of the repository's TypeScript modules point at their compiled copies, every
// other import of ours (a generated .js file, JSON) at the original, a library's as written.
// The imports are found in the compiled code by es-module-lexer and rewritten in place: the
// bundle API with a resolve plugin did the same in ~16 s and ~25 CPU-s of esbuild for npm
// test's ~770 modules (every import a round trip to the plugin), the transform in ~1.5 s.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { init, parse } from 'es-module-lexer';
import { isRunning } from './isRunning.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where each run's compiled copies go: `<COMPILED_TESTS>/<run>/<path in the repository>`, `.js` for `.ts`. */
export const COMPILED_TESTS = path.join(ROOT, '.cache', 'test-js');

const SOURCES = path.join(ROOT, 'src') + path.sep;
/** The names a module outside src/ finds its source's location under (see compileModule). */
const HERE = { url: '__sourceUrl', dirname: '__sourceDirname', filename: '__sourceFilename' };
const TYPESCRIPT = /\.(c|m)?tsx?$/;
const isOurs = (file: string) => file.startsWith(ROOT + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`) && !file.startsWith(COMPILED_TESTS);
const isOurTypeScript = (file: string) => isOurs(file) && TYPESCRIPT.test(file) && !file.endsWith('.d.ts') && fs.existsSync(file);
const relativeSpecifier = (from: string, to: string) => {
  const relative = path.relative(path.dirname(from), to).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

/**
 * Compiles `entries` (absolute paths), every TypeScript module of the repository they import,
 * directly or not, and, once one of them reaches src/, all of src/ and `options.withSources`,
 * into a new folder `out` under COMPILED_TESTS (one per run: two runs side by side never share
 * one); returns the compiled paths of `entries`. A run whose files reach nothing of src/ (the
 * runner's own tests run the runner over tiny files a dozen times) compiles only those.
 */
export async function compileTests(entries: string[], out: string, options: CompileOptions = {}): Promise<string[]> {
  if (!out.startsWith(COMPILED_TESTS + path.sep)) throw new Error(`compiled tests go under ${COMPILED_TESTS}, not ${out}`);
  fs.rmSync(out, { recursive: true, force: true });
  await init();
  const settings = readSettings();
  /** A module's compiled copy. */
  const compiledPath = (source: string): string => path.join(out, path.relative(ROOT, source)).replace(TYPESCRIPT, '.js');
  // all of src/, its worker entries (never imported) included
  const sources = fs
    .readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(SOURCES, f))
    .filter((f) => TYPESCRIPT.test(f) && !f.endsWith('.d.ts'));
  const seen = new Set(entries);
  /** src/ whole and what goes with it, once, when a module of src/ is first reached. */
  let sourcesLeft = [...sources, ...(options.withSources ?? [])];
  const reach = (module: string, found: string[]) => {
    if (module.startsWith(SOURCES) && sourcesLeft.length > 0) {
      const all = sourcesLeft;
      sourcesLeft = [];
      for (const file of all) reach(file, found);
    }
    if (seen.has(module)) return;
    seen.add(module);
    found.push(module);
  };
  let wave = [...seen];
  for (const entry of entries) if (entry.startsWith(SOURCES)) reach(entry, wave);
  while (wave.length > 0) {
    const found: string[] = [];
    await Promise.all(
      wave.map(async (file) => {
        const target = compiledPath(file);
        const { code, imported } = await compileModule(file, target, compiledPath, settings, options);
        for (const module of imported) reach(module, found);
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        await fs.promises.writeFile(target, code);
      }),
    );
    wave = found;
  }
  return entries.map(compiledPath);
}

export interface CompileOptions {
  /**
   * A module every module outside src/ imports in place of `node:test` (test files sharing a
   * process, test/support/groupedTestApi.mjs); src/ never imports node:test.
   */
  testApi?: string;
  /**
   * Modules compiled with src/ (absolute paths), when the entries reach it: the graphs a test
   * server may serve compiled (test/support/compiledGraphs.ts), which no test imports.
   */
  withSources?: string[];
}

/** What every module's compilation shares: tsconfig's text (esbuild reads it as tsx does) and its exact path aliases. */
interface Settings {
  tsconfigRaw: string;
  /** tsconfig's `paths` without a wildcard: specifier → the module it names. */
  aliases: Map<string, string>;
}

/**
 * tsconfig.json's text as JSON: its comments and trailing commas out, strings kept as they are.
 * TypeScript's own reader (ts.parseConfigFileTextToJson) loaded the 9 MB compiler into every
 * run of the runner, ~2.2 CPU-s through tsx's hooks (3.65 against 1.5 for tsx alone), and the
 * runner's own tests start it a dozen times.
 */
export function jsonOfTsconfig(text: string): unknown {
  // two passes: a trailing comma is seen only once the comments after it are out (`1, // last\n}`)
  const keepStrings = (pattern: RegExp) => (from: string) => from.replace(pattern, (_match, string?: string) => string ?? '');
  const withoutComments = keepStrings(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[^]*?\*\//g)(text);
  return JSON.parse(keepStrings(/("(?:\\.|[^"\\])*")|,(?=\s*[}\]])/g)(withoutComments));
}

function readSettings(): Settings {
  const file = path.join(ROOT, 'tsconfig.json');
  const tsconfigRaw = fs.readFileSync(file, 'utf8');
  let config: { compilerOptions?: { paths?: unknown } };
  try {
    config = jsonOfTsconfig(tsconfigRaw) as typeof config;
  } catch (err) {
    throw new Error(`tsconfig.json: ${err instanceof Error ? err.message : String(err)}`);
  }
  const paths = (config?.compilerOptions?.paths ?? {}) as Record<string, string[]>;
  const aliases = new Map(
    Object.entries(paths)
      .filter(([name, targets]) => !name.includes('*') && targets.length > 0)
      .map(([name, targets]) => [name, path.resolve(ROOT, targets[0]!)]),
  );
  return { tsconfigRaw, aliases };
}

/**
 * One module compiled alone, by esbuild as tsx does: its code, its imports of the repository's
 * TypeScript modules pointed at their compiled copies (those modules returned, to compile
 * next), its imports of any other file of ours (a generated .js, JSON) at the original, a
 * library's by its name as written. A module outside src/ reads its source's location
 * wherever it asks import.meta where it is.
 */
async function compileModule(file: string, target: string, compiledPath: (source: string) => string, settings: Settings, options: CompileOptions) {
  const source = await fs.promises.readFile(file, 'utf8');
  const outsideSources = !file.startsWith(SOURCES);
  const result = await transform(source, {
    loader: file.endsWith('x') ? 'tsx' : 'ts',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfigRaw: settings.tsconfigRaw,
    sourcefile: path.relative(path.dirname(target), file).split(path.sep).join('/'),
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'error',
    // in its code, not its strings; the names are declared in the banner (an import is hoisted above it)
    ...(outsideSources && {
      define: Object.fromEntries(Object.entries(HERE).map(([key, name]) => [`import.meta.${key}`, name])),
      banner: `const ${HERE.url} = ${JSON.stringify(pathToFileURL(file).href)}, ${HERE.dirname} = ${JSON.stringify(path.dirname(file))}, ${HERE.filename} = ${JSON.stringify(file)};`,
    }),
  });
  const imported: string[] = [];
  const pointAt = (specifier: string): string | undefined => {
    if (specifier === 'node:test' && options.testApi && outsideSources) return pathToFileURL(options.testApi).href;
    if (specifier.startsWith('node:')) return undefined;
    const local =
      settings.aliases.get(specifier) ?? (specifier.startsWith('.') || path.isAbsolute(specifier) ? path.resolve(path.dirname(file), specifier) : undefined);
    // a library stays a library, resolved by node from the copy's place (under the repository)
    if (!local) return undefined;
    const module = [local, local.replace(/\.js$/, '.ts')].find(isOurTypeScript);
    if (module) {
      imported.push(module);
      return relativeSpecifier(target, compiledPath(module));
    }
    // a missing file is left as written: it fails where it would have
    return fs.existsSync(local) ? pathToFileURL(local).href : undefined;
  };
  let code = result.code;
  const [imports] = parse(code);
  // from the last, so that each edit leaves the positions before it as they were
  for (const found of [...imports].reverse()) {
    if (found.type === 'import-meta' || found.specifier === undefined || (found.type === 'dynamic' && found.glob)) continue;
    const pointed = pointAt(found.specifier);
    if (pointed === undefined) continue;
    // a dynamic import's specifier is read with its quotes, a static one's without
    const quoted = JSON.stringify(pointed);
    code = code.slice(0, found.start) + (found.type === 'dynamic' ? quoted : quoted.slice(1, -1)) + code.slice(found.end);
  }
  return { code, imported };
}

/** Removes the folders a run keeps under `dir` by its pid (its compiled copies, its entry files) when that run is gone (killed before it could). */
export function removeLeftCompilations(dir = COMPILED_TESTS): void {
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}
