// Imports a module of the user's project (graphs, http.app, auth.path), TypeScript or not.
// Compiled (the npm package, or dist/ in a clone) Node has no TypeScript loader, so the first
// TypeScript file of the project registers tsx's loader, as running from the sources does
// from the start. Globally, not in a tsx namespace: a namespace would load every library the
// project imports (LangGraph, LangChain, zod: ~550 modules) a second time under its own URLs,
// doubling start-up and memory and splitting module singletons such as LangGraph's schema
// registry between the project's copy and agentplane's.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const RUNNING_COMPILED = import.meta.url.endsWith('.js');
const TYPESCRIPT_FILE = /\.(c|m)?tsx?$/;
let typescriptLoader: Promise<void> | undefined;

/** tsx's ES module loader, registered once (a clone's sources run with it in place already). */
function loadTypescript(): Promise<void> {
  typescriptLoader ??= import('tsx/esm/api').then(({ register }) => void register());
  return typescriptLoader;
}

export async function importProjectModule(file: string): Promise<Record<string, unknown>> {
  if (RUNNING_COMPILED && TYPESCRIPT_FILE.test(file)) await loadTypescript();
  return import(pathToFileURL(file).href);
}

/**
 * A library module as the project's own modules see it: the same instance (module singletons
 * such as LangGraph's schema registry are shared), since the project's imports resolve as
 * agentplane's own. `projectFile` is a module of the project.
 */
export async function importFromProject(url: string, projectFile: string): Promise<Record<string, unknown>> {
  if (RUNNING_COMPILED && TYPESCRIPT_FILE.test(projectFile)) await loadTypescript();
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
