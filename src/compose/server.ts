// Starts a server the way every entry point does (the CLI, the tests): the backend is picked
// and opened here, the runtime's server is started on it, and the areas are built on its ports.
import type { Store } from '../domain/ports/store.ts';
import { areaOperations, type AppFactory, type AreaName } from './area.ts';
import type { ServerConfig } from '../runtime/config.ts';
import { createLogger, type Logger } from '../runtime/logging/logger.ts';
import { startHttpServer, type HttpServer } from '../runtime/server.ts';
import { openBackend } from './backend.ts';

export type { AppFactory, AppFactoryDeps, AreaName } from './area.ts';
export type { Application, BackgroundModule } from '../runtime/application.ts';

export interface RunningServer extends HttpServer {
  /** The store the server keeps its records in (tests look at them directly). */
  store: Store;
}

/**
 * The real application, imported when the server makes it: its modules (LangGraph among
 * them, and tsx for the project's graphs) load after the port listens, not before.
 */
export const createApplication: AppFactory = async (deps) => (await import('./application.ts')).createApplication(deps);

/** The application of some areas only, imported as createApplication is. */
const areasApplication =
  (names: readonly AreaName[]): AppFactory =>
  async (deps) =>
    (await import('./application.ts')).composeApplication(names)(deps);

export interface StartServerOptions {
  /** `false` answers only in process, through the returned `handle` (runtime/server.ts). */
  listen?: boolean;
  /**
   * Serve these areas alone (A2A with the agent server it is built on): the others' routes
   * answer 404 as unknown routes do. `createApp` then defaults to their composition.
   */
  areas?: readonly AreaName[];
}

export async function startServer(
  config: ServerConfig,
  createApp?: AppFactory,
  log: Logger = createLogger(config.logLevel),
  options: StartServerOptions = {},
): Promise<RunningServer> {
  const { areas, listen } = options;
  const app = createApp ?? (areas ? areasApplication(areas) : createApplication);
  const backend = await openBackend(config, log);
  const { store, coordination } = backend;
  const served = areas && new Set(servedAreas(areas).flatMap(areaOperations));
  const server = await startHttpServer(
    config,
    backend,
    async (deps) => app({ ...deps, store, coordination, runBackend: await backend.runBackend(), queries: backend.queries }),
    log,
    { listen, ...(served ? { operations: served } : {}) },
  );
  return { ...server, store };
}

/** The areas served when some are asked for: A2A is served with the agent server it is built on. */
export function servedAreas(areas: readonly AreaName[]): AreaName[] {
  return areas.includes('a2a') && !areas.includes('agent-server') ? [...areas, 'agent-server'] : [...areas];
}
