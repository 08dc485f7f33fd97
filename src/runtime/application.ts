// What a composition root hands the server: handlers by operationId, JSON-RPC methods by
// name, and the modules that run beside the HTTP server. Kept apart from server.ts so that
// domain modules (a deployer, the run workers) never import the HTTP server.
import type { ServerConfig } from './config.ts';
import type { RpcMethodHandler } from './jsonrpc.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { OperationHandler } from './pipeline.ts';
import type { Store } from './store/types.ts';

/** Something that runs beside the HTTP server (a worker pool, a deployer). */
export interface BackgroundModule {
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

export interface Application {
  handlers: Record<string, OperationHandler>;
  methods: Record<string, RpcMethodHandler>;
  modules: BackgroundModule[];
}

export interface AppFactoryDeps {
  config: ServerConfig;
  store: Store;
  log: Logger;
  /** Areas add their gauges here; GET /metrics renders it. */
  metrics: Metrics;
}

export type AppFactory = (deps: AppFactoryDeps) => Promise<Application>;
