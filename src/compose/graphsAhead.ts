// The start's check that the project's graphs load, made by a run worker begun before the main
// thread loads the application (issue 86): LangGraph's import (~0.6 s of CPU) is then the other
// core's, overlapping the main thread's own start, and the main thread loads its copy of the
// graphs after its first 200 (GraphRegistry.deferred, agentServerServices.ts). A graph that does
// not load still refuses the start, with loadGraphs' message, as where the main thread loaded it.
// Only `serve` (its project compiled ahead, projectCompilation.ts) with run workers does so: dev's
// reload watches what the main thread loads, and runs on the request loop need the graphs there.
import path from 'node:path';
import type { ServerConfig } from '../runtime/config.ts';
import type { WorkerSetup } from '../adapters/run-workers/protocol.ts';
import { WorkerAhead, withHeartbeat } from '../adapters/run-workers/workerAhead.ts';
import { projectCompiledAhead, projectLibraries } from '../shared/projectModule.ts';
import { projectModuleFiles } from './projectCompilation.ts';
import { projectApiUrl } from '../shared/projectGlobals.ts';

/** The project's directory, where its graphs' paths start. */
export function projectBaseDir(config: ServerConfig): string {
  return config.configFile ? path.dirname(config.configFile) : process.cwd();
}

/** How function exports are read: langgraph.json as upstream reads it (a function is a graph factory). */
export function projectFunctions(config: ServerConfig): WorkerSetup['functions'] {
  return config.configFile && path.basename(config.configFile) === 'langgraph.json' ? 'factory' : 'plain';
}

/** The worker `serve` began before its server opened the store (beginGraphsAhead), until the application takes it. */
let begun: WorkerAhead | undefined;

/** Whether the start's graphs are loaded by a worker ahead (above). */
function loadsAhead(config: ServerConfig): boolean {
  return !config.mock && config.runWorkers > 0 && Object.keys(config.project.graphs ?? {}).length > 0;
}

/**
 * Begins that worker as early as `serve` knows its project, while its TypeScript compiles: it
 * imports the libraries the graphs import (LangGraph, most of a start's CPU) while the main thread
 * opens the store, listens and loads the application, then waits to be told the compiled modules
 * and the server's URL (startGraphsAhead). Begun where the application loaded, it waited for all
 * of that first, and the start for it (session 13: 1,327 against 1,061 ms on a quiet machine).
 */
export function beginGraphsAhead(config: ServerConfig): void {
  if (!loadsAhead(config) || begun) return;
  const setup: WorkerSetup = {
    graphs: config.project.graphs ?? {},
    baseDir: projectBaseDir(config),
    functions: projectFunctions(config),
    fresh: false,
    libraries: projectLibraries(projectModuleFiles(config.project, projectBaseDir(config))),
    awaitsProject: true,
  };
  begun = new WorkerAhead(withHeartbeat(setup, config.runStallMs), config.runWorkerMemoryMb);
}

/** The run worker that loads the project's graphs ahead, where a start does (above), told its project; undefined where not. */
export async function startGraphsAhead(config: ServerConfig): Promise<WorkerAhead | undefined> {
  // one server a process begins one (cli/main.ts's serve)
  const early = begun;
  begun = undefined;
  if (!loadsAhead(config)) return undefined;
  const compiled = await projectCompiledAhead();
  if (!compiled) {
    // the project loads through tsx: on this thread, as before
    await early?.stop();
    return undefined;
  }
  if (early) {
    early.tell(compiled.modules, projectApiUrl());
    return early;
  }
  const setup: WorkerSetup = {
    graphs: config.project.graphs ?? {},
    baseDir: projectBaseDir(config),
    functions: projectFunctions(config),
    fresh: false,
    modules: compiled.modules,
    apiUrl: projectApiUrl(),
  };
  return new WorkerAhead(withHeartbeat(setup, config.runStallMs), config.runWorkerMemoryMb);
}
