// Imports a module of the user's project (graphs, http.app, auth.path), TypeScript or not.
// Compiled (the npm package) Node has no TypeScript loader, so a project's .ts files go
// through tsx's scoped loader, which touches only the project's modules, never
// agentplane's own. From the sources (a clone) tsx's global loader is in place already.
import { pathToFileURL } from 'node:url';

const RUNNING_COMPILED = import.meta.url.endsWith('.js');
const TYPESCRIPT_FILE = /\.(c|m)?tsx?$/;
type ScopedImport = (specifier: string, parent: string) => Promise<Record<string, unknown>>;
let scopedTsx: Promise<ScopedImport> | undefined;

/** One tsx namespace for the whole project, so the modules its files share load once. */
function typescriptImport(): Promise<ScopedImport> {
  scopedTsx ??= import('tsx/esm/api').then(({ register }) => register({ namespace: 'agentplane-project' }).import);
  return scopedTsx;
}

export async function importProjectModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (RUNNING_COMPILED && TYPESCRIPT_FILE.test(file)) return (await typescriptImport())(url, import.meta.url);
  return import(url);
}

/**
 * A library module as the project's own modules see it (the same instance: module singletons
 * such as LangGraph's schema registry are shared). `projectFile` is a module of the project;
 * when it was loaded through tsx's namespace, the library is loaded through it too.
 */
export async function importFromProject(url: string, projectFile: string): Promise<Record<string, unknown>> {
  if (RUNNING_COMPILED && TYPESCRIPT_FILE.test(projectFile)) return (await typescriptImport())(url, pathToFileURL(projectFile).href);
  return import(url);
}
