// The project's TypeScript compiled to JavaScript by esbuild before it is imported, for `serve`
// (`dev` keeps tsx: its reload and its list of watched files come from tsx's hooks). Through tsx
// the main thread waited in register() while tsx's hooks thread started (~100-150 ms on a quiet
// machine), then for esbuild's service to start and compile each module it was asked for; here
// esbuild's service (a process of its own, on the other core) compiles the project while the
// main thread loads the application and LangGraph, and Node imports the JavaScript with no hooks.
//
// What a project sees stays as tsx gives it: each module is compiled alone and written as
// `<file>.mjs` under `node_modules/.cache/agentplane/modules/<hash of the whole set>/` of the
// nearest folder that has a node_modules, the project's layout mirrored, so a package imports
// as written and resolves as from the source (checked: the node_modules folders Node would search
// from each place are the same, symlinks followed); the project's own imports (relative, tsconfig
// `paths`, `#imports`, the package naming itself) point at the compiled copy of a TypeScript module
// or the very file of any other (JSON, JavaScript), as esbuild's resolver finds it (`.js` for
// `.ts`, no extension, a folder's index, tsconfig's paths: as tsx finds them); `import.meta.url`,
// `dirname` and `filename` read the source's. One compiled copy per module however many graphs
// import it. Whatever this cannot give exactly as tsx would answers why, and the project loads
// through tsx as before: a module tsx runs as CommonJS (`.cts`, `.ts` in a package whose
// package.json says no "type": "module"), `require()`, `import.meta` used otherwise, an import
// whose specifier is computed, JSON without its import attribute (tsx takes it, Node does not), a package that ships TypeScript, a compile error (tsx then names
// it as before), no node_modules folder or one that cannot be written.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { withEsbuild } from './esbuildService.ts';
import { fixedInputs, identity, readCompiledSet, tsconfigInputs, writeCompiledSet } from './projectCompileCache.ts';
import { packageName } from './projectImports.ts';
import { loadedByRequire, nearestTsconfig } from './typescriptLoader.ts';
import { writeWhole } from './cacheFiles.ts';

/** Each module compiled (its source's path) → its JavaScript's URL; or why the project loads through tsx. */
export type CompiledProject = { modules: Map<string, string>; set?: string } | { fallback: string };

const TYPESCRIPT = /\.(ts|tsx|mts|cts)$/;
const DECLARATIONS = /\.d\.[cm]?ts$/;
/** How an import of a project module is marked in a module's output until every module's place is known. */
const MARK = 'agentplane-compiled-module:';
const MARKED = new RegExp(`"${MARK}((?:[^"\\\\]|\\\\.)*)"`, 'g');
const INNER = Symbol('resolved by esbuild for the plugin');

class CannotCompile extends Error {}

/** Compiles `entries` (absolute paths of TypeScript modules) and every project module they import. */
export async function compileProject(entries: readonly string[]): Promise<CompiledProject> {
  try {
    return await compile(entries);
  } catch (err) {
    return { fallback: err instanceof CannotCompile ? err.message : `esbuild: ${(err as Error).message.split('\n').slice(0, 3).join(' ')}` };
  }
}

async function compile(entries: readonly string[]): Promise<{ modules: Map<string, string>; set?: string }> {
  if (!entries.length) return { modules: new Map() };
  // an unchanged project's copies from an earlier start, without esbuild (projectCompileCache.ts)
  const nodeModules = nodeModulesAbove(entries[0]);
  const kept = keptCompile(entries);
  if (kept) {
    // marks the set used, as a compile does
    for (const sets of new Set([...kept.places.values()].map((place) => setsFolder(place, kept.hash)))) void pruneSets(sets, kept.hash);
    return { modules: new Map([...kept.places].map(([file, place]) => [file, pathToFileURL(place).href])), set: kept.hash };
  }
  // the service is held for the whole compile (its waves), then let go: a server compiles once
  const { urls, set } = await withEsbuild((esbuild) => compileWith(esbuild, entries));
  if (nodeModules) void writeCompiledSet(nodeModules, entries, set);
  return { modules: urls, set: set.hash };
}

/** The copies an earlier compile of `entries` made, if its record says nothing it read changed since (projectCompileCache.ts). */
export function keptCompile(entries: readonly string[]): { hash: string; places: Map<string, string> } | undefined {
  const nodeModules = entries.length ? nodeModulesAbove(entries[0]) : undefined;
  return nodeModules ? readCompiledSet(nodeModules, entries, placeOf) : undefined;
}

async function compileWith(esbuild: typeof import('esbuild'), entries: readonly string[]) {
  // the one tsx would take: nearest the first module (one per process, as tsx's hooks are global)
  const tsconfig = nearestTsconfig(path.dirname(entries[0]));
  // what the compile reads, each as it was before it was read (a change meanwhile is a miss next time)
  const nodeModules = nodeModulesAbove(entries[0]);
  const inputs = new Map(nodeModules ? fixedInputs(nodeModules) : []);
  // the tsconfig esbuild reads, the one it extends, and the places a nearer one would be found
  for (const [input, was] of tsconfigInputs(path.dirname(entries[0]))) inputs.set(input, was);
  const outputs = new Map<string, string>();
  const seen = new Set(entries);
  let wave = [...seen];
  while (wave.length) {
    const compiled = await Promise.all(wave.map((file) => compileModule(esbuild.build, file, tsconfig, inputs)));
    wave = [];
    for (const { file, code, imports } of compiled) {
      outputs.set(file, code);
      const unseen = [...imports].filter((module) => !seen.has(module));
      for (const module of unseen) seen.add(module);
      wave.push(...unseen);
    }
  }
  const set = createHash('sha256');
  for (const [file, code] of [...outputs].sort(([a], [b]) => (a < b ? -1 : 1))) set.update(`${file}\0${code}\0`);
  const hash = set.digest('hex').slice(0, 16);
  const places = new Map([...outputs.keys()].map((file) => [file, placeOf(file, hash)]));
  const urls = new Map([...places].map(([file, place]) => [file, pathToFileURL(place).href]));
  await Promise.all(
    [...outputs].map(([file, code]) => {
      const linked = code.replace(MARKED, (_, quoted: string) => JSON.stringify(urls.get(JSON.parse(`"${quoted}"`))));
      return writeOnce(places.get(file)!, linked);
    }),
  );
  for (const sets of new Set([...places.values()].map((place) => setsFolder(place, hash)))) void pruneSets(sets, hash);
  return { urls, set: { hash, modules: [...outputs.keys()], inputs } };
}

/**
 * Sets of compiled copies are removed once unused for a day (their sources changed since), or for
 * ten minutes beyond the 32 used last (servers started on projects of the moment, as tests do). A
 * server whose set was removed meanwhile still starts a run worker: what a worker cannot import
 * from its copy it loads through tsx (projectModule.ts).
 */
const KEPT = { ms: 24 * 3600_000, newest: 32, newestUnusedMs: 10 * 60_000 };

/** The folder holding every set (`…/.cache/agentplane/modules`) above `place`, a copy in set `hash`. */
function setsFolder(place: string, hash: string): string {
  const at = place.lastIndexOf(`${path.sep}${hash}${path.sep}`);
  return place.slice(0, at);
}

/** Marks set `hash` used now and removes the sets beside it that KEPT lets go; a failure changes nothing that matters. */
async function pruneSets(folder: string, hash: string): Promise<void> {
  try {
    const now = new Date();
    await fs.promises.utimes(path.join(folder, hash), now, now);
    const sets = await Promise.all(
      (await fs.promises.readdir(folder)).map(async (name) => ({ name, unusedMs: now.getTime() - (await fs.promises.stat(path.join(folder, name))).mtimeMs })),
    );
    sets.sort((a, b) => a.unusedMs - b.unusedMs);
    for (const [rank, { name, unusedMs }] of sets.entries()) {
      if (name === hash || (unusedMs <= KEPT.ms && (rank < KEPT.newest || unusedMs <= KEPT.newestUnusedMs))) continue;
      await fs.promises.rm(path.join(folder, name), { recursive: true, force: true });
    }
  } catch {
    // another process pruned or is writing: the next start prunes
  }
}

/** Whether tsx runs `file` as an ES module we can compile: TypeScript, not declarations, not CommonJS. */
function compilable(file: string): boolean {
  return TYPESCRIPT.test(file) && !DECLARATIONS.test(file) && !loadedByRequire(file);
}

async function compileModule(build: typeof import('esbuild').build, file: string, tsconfig: string | undefined, inputs: Map<string, string>) {
  const read = (input: string | undefined) => {
    if (input && !inputs.has(input)) inputs.set(input, identity(input));
  };
  read(file);
  // the package.json tsx's type and the package's own name are read from; the folder a new one may appear in
  read(nearestFile(path.dirname(file), 'package.json'));
  read(path.dirname(file));
  if (!compilable(file)) throw new CannotCompile(`${file} runs as CommonJS under tsx`);
  const imports = new Set<string>();
  const problems: string[] = [];
  const own = ownPackage(file);
  const plugin: Plugin = {
    name: 'agentplane-project-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === INNER) return undefined;
        const specifier = args.path;
        if (isBuiltin(specifier)) return { path: specifier, external: true };
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') {
          problems.push(`${args.kind} of ${specifier}`);
          return { path: specifier, external: true };
        }
        const found = await b.resolve(specifier, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: INNER });
        const target = found.errors.length || found.namespace !== 'file' ? undefined : found.path;
        const bare = !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.startsWith('#') && !specifier.startsWith('file:');
        // tsx imports JSON without the attribute; Node, importing the copy, refuses it
        if (target?.endsWith('.json') && args.with.type !== 'json') problems.push(`${specifier}: JSON without \`with { type: 'json' }\`, which Node needs`);
        // a package, resolved by Node from the compiled copy's place as from the source's (placeOf checks)
        if (bare && packageName(specifier) !== own && (!target || inPackage(target, packageName(specifier), path.dirname(file)))) {
          if (target && TYPESCRIPT.test(target) && !DECLARATIONS.test(target)) problems.push(`${specifier} is a package of TypeScript sources`);
          return { path: specifier, external: true };
        }
        if (!target) {
          problems.push(`${specifier} not found`);
          return { path: specifier, external: true };
        }
        // where a project import was looked for: a file added there may resolve instead
        if (specifier.startsWith('.') || specifier.startsWith('/')) read(path.dirname(path.resolve(args.resolveDir, specifier)));
        read(path.dirname(target));
        if (TYPESCRIPT.test(target)) {
          if (!compilable(target)) problems.push(`${target} runs as CommonJS under tsx`);
          imports.add(target);
          return { path: MARK + target, external: true };
        }
        // any other file is imported by Node as it is: only what Node imports as tsx does
        if (!/\.(js|mjs|cjs|json)$/.test(target)) problems.push(`${specifier}: Node does not import ${path.extname(target) || 'extensionless'} files`);
        else if (target.endsWith('.js') && loadedByRequire(target)) problems.push(`${specifier}: JavaScript that tsx may run as CommonJS`);
        return { path: pathToFileURL(target).href, external: true };
      });
    },
  };
  const here = pathToFileURL(file).href;
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    conditions: [],
    mainFields: ['main'],
    ...(tsconfig ? { tsconfig } : {}),
    define: {
      'import.meta.url': JSON.stringify(here),
      'import.meta.dirname': JSON.stringify(path.dirname(file)),
      'import.meta.filename': JSON.stringify(file),
    },
    // a stack trace names the compiled copy (mirroring the source's path); --enable-source-maps maps it to the source's lines
    sourcemap: 'inline',
    sourcesContent: false,
    outdir: path.dirname(placeOf(file, 'x'.repeat(16))),
    // the path esbuild writes atop the output is relative to this: not the process's, or each working directory would make a set of its own
    absWorkingDir: path.dirname(file),
    logLevel: 'silent',
    plugins: [plugin],
  });
  const code = result.outputFiles[0].text;
  if (/\bimport\.meta\b/.test(code)) problems.push('import.meta beyond url, dirname and filename');
  if (/\bimport\(\s*[^"'\s]/.test(code)) problems.push('an import whose specifier is computed');
  if (problems.length) throw new CannotCompile(`${file}: ${problems.join('; ')}`);
  return { file, code, imports };
}

/** The first `name` in `dir` or a folder above it. */
function nearestFile(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, name))) return path.join(at, name);
    if (path.dirname(at) === at) return undefined;
  }
}

/** The name in the package.json nearest `file` (a package importing itself by name). */
function ownPackage(file: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        return JSON.parse(fs.readFileSync(manifest, 'utf8')).name;
      } catch {
        return undefined;
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Whether `target` lies in package `name` as Node finds it from `dir` (not a tsconfig alias of the same name). */
function inPackage(target: string, name: string, dir: string): boolean {
  const real = fs.realpathSync(target);
  return nodeModulesFrom(dir).some((folder) => {
    const at = path.join(folder, name);
    return fs.existsSync(at) && real.startsWith(fs.realpathSync(at) + path.sep);
  });
}

/**
 * Where `file`'s compiled copy goes: the nearest folder above it with a node_modules, whose
 * `.cache/` it is written in (as babel and eslint do), the path from that folder mirrored.
 */
function placeOf(file: string, hash: string): string {
  const root = nodeModulesRoot(file);
  if (root === undefined) throw new CannotCompile(`no node_modules folder above ${file}`);
  const modules = fs.realpathSync(path.join(root, 'node_modules'));
  // a module of an installed package (the shipped examples) mirrored without a node_modules folder, where Node would look for packages
  const mirrored = path
    .relative(root, file)
    .split(path.sep)
    .map((part) => (part === 'node_modules' ? '_node_modules' : part));
  const place = path.join(modules, '.cache', 'agentplane', 'modules', hash, `${path.join(...mirrored)}.mjs`);
  // a package imported by the copy must resolve to what the source would import
  const fromSource = nodeModulesFrom(path.dirname(file)).join('\n');
  if (nodeModulesFrom(path.dirname(place)).join('\n') !== fromSource)
    throw new CannotCompile(`${file}: packages would not resolve from ${path.dirname(place)} as from the source`);
  return place;
}

/** The nearest folder above `file` that has a node_modules. */
function nodeModulesRoot(file: string): string | undefined {
  const found = nearestFile(path.dirname(file), 'node_modules');
  return found && path.dirname(found);
}

/** The real path of the node_modules placeOf writes `file`'s copy under. */
function nodeModulesAbove(file: string): string | undefined {
  const root = nodeModulesRoot(file);
  try {
    return root === undefined ? undefined : fs.realpathSync(path.join(root, 'node_modules'));
  } catch {
    return undefined;
  }
}

/** The node_modules folders Node searches for a package imported from `dir`, nearest first, each as its real path. */
function nodeModulesFrom(dir: string): string[] {
  const folders: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (path.basename(at) !== 'node_modules') {
      const candidate = path.join(at, 'node_modules');
      if (fs.existsSync(candidate)) folders.push(fs.realpathSync(candidate));
    }
    if (path.dirname(at) === at) return folders;
  }
}

/** Writes `text` to `file` unless it is there already (a set's copies never change): whole, or not at all. */
async function writeOnce(file: string, text: string): Promise<void> {
  if (fs.existsSync(file)) return;
  try {
    await writeWhole(file, text);
  } catch (err) {
    throw new CannotCompile(`cannot write ${file}: ${(err as Error).message}`);
  }
}
