// Imports a module of the user's project (graphs, http.app, auth.path), TypeScript or not.
// Compiled (the npm package, or dist/ in a clone) Node has no TypeScript loader, so the first
// TypeScript file of the project registers tsx's loader, as running from the sources does
// from the start. Globally, not in a tsx namespace: a namespace would load every library the
// project imports (LangGraph, LangChain, zod: ~550 modules) a second time under its own URLs,
// doubling start-up and memory and splitting module singletons such as LangGraph's schema
// registry between the project's copy and agentplane's.
// Once tsx's hooks are registered every module loaded costs round trips to their thread (and
// a source map lookup): LangGraph's ~550 files took ~1 s more through them than plain. So the
// libraries the project imports that agentplane itself ships, where the project resolves them
// to agentplane's very copy, are loaded first, as plain JavaScript, as bin/agentplane.js does
// when it runs the sources; the project's imports then find them loaded.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packageName, packagesImportedBy } from './projectImports.ts';

const RUNNING_COMPILED = import.meta.url.endsWith('.js');
const TYPESCRIPT_FILE = /\.(c|m)?tsx?$/;
const HERE = path.dirname(fileURLToPath(import.meta.url));
let typescriptLoader: Promise<void> | undefined;

/**
 * tsx's ES module loader, registered once (a clone's sources run with it in place already),
 * after the libraries `files` import that can be loaded without it (see above).
 */
function loadTypescript(files: readonly string[]): Promise<void> {
  typescriptLoader ??= (async () => {
    for (const specifier of shippedLibraries(files)) {
      // a library that fails here fails the project's own import the same way, with its message
      await import(specifier).catch(() => undefined);
    }
    const { register } = await import('tsx/esm/api');
    register();
  })();
  return typescriptLoader;
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
  if (RUNNING_COMPILED && typescript.length) await loadTypescript(typescript);
}

export async function importProjectModule(file: string): Promise<Record<string, unknown>> {
  if (RUNNING_COMPILED && TYPESCRIPT_FILE.test(file)) await loadTypescript([file]);
  return import(pathToFileURL(file).href);
}

/**
 * A library module as the project's own modules see it: the same instance (module singletons
 * such as LangGraph's schema registry are shared), since the project's imports resolve as
 * agentplane's own. `projectFile` is a module of the project.
 */
export async function importFromProject(url: string, projectFile: string): Promise<Record<string, unknown>> {
  if (RUNNING_COMPILED && TYPESCRIPT_FILE.test(projectFile)) await loadTypescript([projectFile]);
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
