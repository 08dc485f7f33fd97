// `serve` compiles the project's TypeScript ahead (shared/projectCompile.ts): every module the
// project file names (graphs, http.app, auth, the store's embeddings) at once, so that a module
// any of them imports has one compiled copy, started before the server opens its store and loads
// the application, which the main thread does meanwhile. `dev` does not: its reload and watched
// files come from tsx's hooks.
import path from 'node:path';
import { graphSource } from '../domain/agent/graphs/graphs.ts';
import type { ProjectConfig, ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logging/logger.ts';
import { compileProjectModules } from '../shared/projectModule.ts';

/** Starts compiling the project's TypeScript modules; a project that must load through tsx is told at debug level, with why. */
export function compileProjectAhead(config: ServerConfig, log: Logger): void {
  if (config.mock) return;
  const baseDir = config.configFile ? path.dirname(config.configFile) : process.cwd();
  const started = performance.now();
  void compileProjectModules(projectModuleFiles(config.project, baseDir)).then((result) => {
    if ('fallback' in result) log.debug('the project’s TypeScript loads through tsx', { reason: result.fallback });
    else if (result.modules.size) log.debug('the project’s TypeScript compiled', { modules: result.modules.size, ms: Math.round(performance.now() - started) });
  });
}

/** The modules the project file names, as absolute paths (an entry that names none is left to its loader's message). */
export function projectModuleFiles(project: ProjectConfig, baseDir: string): string[] {
  const fileOf = (spec: string | undefined): string | undefined => {
    if (typeof spec !== 'string' || !spec) return undefined;
    const at = spec.lastIndexOf(':');
    return path.resolve(baseDir, at > 1 ? spec.slice(0, at) : spec);
  };
  const embed = project.store?.index?.embed;
  return [
    ...Object.values(project.graphs ?? {}).map((entry) => graphSource(entry, baseDir)?.file),
    fileOf(project.http?.app),
    fileOf(project.auth?.path),
    typeof embed === 'string' && (embed.startsWith('.') || embed.startsWith('/')) ? fileOf(embed) : undefined,
  ].filter((file): file is string => file !== undefined);
}
