// Imports a module of the user's project (graphs, http.app, auth.path, embeddings), as the
// upstream dev server loads it, whatever its package's module type: TypeScript (.ts, .mts,
// .cts) always through tsx's loader (typescriptLoader.ts), JavaScript as Node loads it and,
// where Node cannot (a sibling imported as `./u1.ts` or `./u1`, a tsconfig `paths` alias, ES
// syntax in a CommonJS package), through tsx's loader too, as upstream runs everything.
// The loader is global, not in a tsx namespace: a namespace would load every library the
// project imports (LangGraph, LangChain, zod: ~550 modules) a second time under its own URLs,
// doubling start-up and memory and splitting module singletons such as LangGraph's schema
// registry between the project's copy and agentplane's.
// Once tsx's hooks are registered every module loaded costs round trips to their thread (and
// a source map lookup): LangGraph's ~550 files took ~1 s more through them than plain. So the
// libraries the project imports that agentplane itself ships, where the project resolves them
// to agentplane's very copy, are loaded first, as plain JavaScript, as bin/agentplane.js does
// when it runs the sources; the project's imports then find them loaded.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileProject, type CompiledProject } from './projectCompile.ts';
import { packageName, packagesImportedBy } from './projectImports.ts';
import { registerTypescriptLoader, typescriptLoaderRegistered } from './typescriptLoader.ts';

const TYPESCRIPT_FILE = /\.(c|m)?tsx?$/;
const HERE = path.dirname(fileURLToPath(import.meta.url));
/**
 * Node's failures to load a JavaScript module that tsx's loader may not have: a file or
 * directory it does not resolve (`./u1`, `./u1.js` for `u1.ts`, an alias), a TypeScript
 * extension, ES syntax where Node reads CommonJS or the reverse.
 */
const TSX_MAY_LOAD = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT', 'ERR_UNKNOWN_FILE_EXTENSION', 'ERR_REQUIRE_ESM']);
/** Failures to link a compiled module that tsx's loader, resolving from the source, may not have. */
const COMPILED_MAY_MISS = new Set(['ERR_MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT', 'ERR_UNKNOWN_FILE_EXTENSION']);
/** The URL a module Node failed to load was loaded by through tsx: imported again, the same instance. */
const loadedThroughTsx = new Map<string, string>();

/** The project's TypeScript compiled ahead (projectCompile.ts), when `serve` asked for it: else every module goes through tsx. */
let compiled: Promise<CompiledProject> | undefined;
/** The compiled project, once known (what run workers are handed). */
let compiledNow: CompiledProject | undefined;

/**
 * Starts compiling the project's TypeScript modules `files` (its graphs, http.app, auth,
 * embeddings: all at once, so that a module any of them imports has one compiled copy) with
 * esbuild, while the caller goes on; each is then imported from its JavaScript, without tsx's
 * hooks. What cannot be compiled as tsx would run it loads through tsx (the answer says why).
 */
export function compileProjectModules(files: readonly string[]): Promise<CompiledProject> {
  compiled = compileProject([...new Set(files.filter((file) => TYPESCRIPT_FILE.test(file)))]);
  void compiled.then((result) => (compiledNow = result));
  return compiled;
}

/** What a run worker is given to import the project's modules from (compiledProjectModules' answer in the thread that made them). */
export function compiledProjectModules(): Record<string, string> | undefined {
  return compiledNow && 'modules' in compiledNow && compiledNow.modules.size ? Object.fromEntries(compiledNow.modules) : undefined;
}

/** Once serve's compile is over: its modules and their set (projectCompile.ts); undefined where none was begun (dev, a server in process) or the project loads through tsx. */
export async function projectCompiledAhead(): Promise<{ modules: Map<string, string>; set?: string } | undefined> {
  const project = compiled && (await compiled);
  return project && 'modules' in project ? project : undefined;
}

/** Modules compiled by another thread (a run worker's project, compiled by the main thread). */
export function useCompiledProjectModules(modules: Record<string, string>): void {
  compiledNow = { modules: new Map(Object.entries(modules)) };
  compiled = Promise.resolve(compiledNow);
}

/** The URL of `file`'s compiled JavaScript, if the project was compiled and it is among its modules. */
async function compiledUrl(file: string): Promise<string | undefined> {
  const project = compiled && (await compiled);
  return project && 'modules' in project ? project.modules.get(file) : undefined;
}

/** tsx's loader, registered once, after the libraries `files` import that can be loaded without it (see above); none if each was compiled. */
async function loadTypescript(files: readonly string[]): Promise<void> {
  if (typescriptLoaderRegistered()) return registerTypescriptLoader(files);
  if ((await Promise.all(files.map(compiledUrl))).every((url) => url !== undefined)) return;
  await importShippedLibraries(files);
  return registerTypescriptLoader(files);
}

async function importShippedLibraries(files: readonly string[]): Promise<void> {
  for (const specifier of shippedLibraries(files)) {
    // a library that fails here fails the project's own import the same way, with its message
    await import(specifier).catch(() => undefined);
  }
}

/**
 * The bare specifiers `files` import whose package is one of agentplane's dependencies
 * (plain JavaScript agentplane loads without tsx) and resolves, from the importing project,
 * to the same directory as from agentplane (the same module instances either way).
 */
function shippedLibraries(files: readonly string[]): string[] {
  const own = ownDependencies();
  return packagesImportedBy(files).filter((specifier) => {
    const name = packageName(specifier);
    if (!own.has(name)) return false;
    const ours = packageDir(name, HERE);
    const theirs = files.map((file) => packageDir(name, path.dirname(file)));
    return ours !== undefined && theirs.every((dir) => dir !== undefined && fs.realpathSync(dir) === fs.realpathSync(ours));
  });
}

/** The dependencies agentplane's package.json declares (the first package.json above this module). */
function ownDependencies(): Set<string> {
  for (let dir = HERE; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) return new Set(Object.keys(JSON.parse(fs.readFileSync(manifest, 'utf8')).dependencies ?? {}));
  }
  return new Set();
}

/**
 * Readies the loading of project modules that are about to be imported together (the graphs):
 * the libraries any of them imports load before tsx's hooks, not only the first one's.
 */
export async function prepareProjectModules(files: readonly string[]): Promise<void> {
  const typescript = files.filter((file) => TYPESCRIPT_FILE.test(file));
  if (!typescript.length) return;
  // while esbuild compiles them on its own core, the libraries they import load here
  if (compiled && !typescriptLoaderRegistered()) await importShippedLibraries(typescript);
  await loadTypescript(typescript);
}

export async function importProjectModule(file: string): Promise<Record<string, unknown>> {
  const url = loadedThroughTsx.get(file) ?? pathToFileURL(file).href;
  const compiledFrom = TYPESCRIPT_FILE.test(file) ? await compiledUrl(file) : undefined;
  if (compiledFrom) {
    try {
      return await import(compiledFrom);
    } catch (err) {
      // a link error (nothing of the module ran yet): what the compiled copy could not find, tsx looks for from the source
      if (!COMPILED_MAY_MISS.has((err as NodeJS.ErrnoException)?.code ?? '')) throw err;
      await importShippedLibraries([file]);
      await registerTypescriptLoader([file]);
      return import(url);
    }
  }
  if (TYPESCRIPT_FILE.test(file) || typescriptLoaderRegistered()) {
    await loadTypescript([file]);
    return import(url);
  }
  try {
    return await import(url);
  } catch (err) {
    if (!tsxMayLoad(err)) throw err;
    await loadTypescript([file]);
    // a URL of its own: Node keeps the failed import's answer for the module's URL
    const retried = `${url}?typescript-loader`;
    loadedThroughTsx.set(file, retried);
    return import(retried);
  }
}

let reloads = 0;

/**
 * The module evaluated again, with the project files it imports (a dev reload): each tsImport
 * call gets its own tsx namespace, so ES modules load again under new URLs. CommonJS ones (a
 * `.ts` in a package without "type") are kept by require's cache, which a namespace does not
 * bypass: the project's own entries (not its libraries') are dropped from it first.
 */
export async function importProjectModuleAgain(file: string): Promise<Record<string, unknown>> {
  const cache = createRequire(import.meta.url).cache;
  for (const key of Object.keys(cache)) if (!key.split(path.sep).includes('node_modules')) delete cache[key];
  const url = pathToFileURL(file).href;
  const { tsImport } = await import('tsx/esm/api');
  try {
    return await tsImport(url, import.meta.url);
  } catch {
    return import(`${url}?reload=${++reloads}`);
  }
}

function tsxMayLoad(err: unknown): boolean {
  return err instanceof SyntaxError || TSX_MAY_LOAD.has((err as NodeJS.ErrnoException)?.code ?? '');
}

/**
 * A library module as the project's own modules see it: the same instance (module singletons
 * such as LangGraph's schema registry are shared), since the project's imports resolve as
 * agentplane's own. `projectFile` is a module of the project.
 */
export async function importFromProject(url: string, projectFile: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT_FILE.test(projectFile)) await loadTypescript([projectFile]);
  return import(url);
}

/** A module of a package (`subpath` as its exports name it: `./zod/schema`) as the project resolves it: its own copy, else agentplane's. */
export async function importProjectLibrary(sourceFile: string | undefined, pkg: string, subpath: string): Promise<unknown> {
  const dir = sourceFile ? packageDir(pkg, path.dirname(sourceFile)) : undefined;
  if (!dir) return import(`${pkg}/${subpath.slice(2)}`);
  const exported = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).exports?.[subpath];
  const target = typeof exported === 'string' ? exported : (exported?.import?.default ?? exported?.import ?? exported?.default);
  if (typeof target !== 'string') return import(`${pkg}/${subpath.slice(2)}`);
  return importFromProject(pathToFileURL(path.join(dir, target)).href, sourceFile!);
}

function packageDir(pkg: string, from: string): string | undefined {
  for (let at = from; ; at = path.dirname(at)) {
    const candidate = path.join(at, 'node_modules', pkg);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}
