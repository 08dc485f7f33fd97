// Starts a server the way every entry point does (the CLI, the tests): the backend is picked
// and opened here, the runtime's server is started on it, and the areas are built on its ports.
import type { Store } from '../domain/ports/store.ts';
import type { AppFactory } from '../handlers/deps.ts';
import type { ServerConfig } from '../runtime/config.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { startHttpServer, type HttpServer } from '../runtime/server.ts';
import { openBackend } from './backend.ts';

export type { AppFactory, AppFactoryDeps } from '../handlers/deps.ts';
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

export async function startServer(
  config: ServerConfig,
  createApp: AppFactory = createApplication,
  log: Logger = createLogger(config.logLevel),
  /** `listen: false` answers only in process, through the returned `handle` (runtime/server.ts). */
  options: { listen?: boolean } = {},
): Promise<RunningServer> {
  const backend = await openBackend(config, log);
  const { store, coordination } = backend;
  const server = await startHttpServer(
    config,
    backend,
    async (deps) => createApp({ ...deps, store, coordination, runBackend: await backend.runBackend(), queries: backend.queries }),
    log,
    options,
  );
  return { ...server, store };
}
