// What a composition root hands the server: handlers by operationId, JSON-RPC methods by
// name (served by the handler of their JSON-RPC operation), and the modules that run beside the HTTP server. Kept apart from server.ts so that
// domain modules (a deployer, the run workers) never import the HTTP server.
import type { ServerConfig } from './config.ts';
import type { HandlerRegistry } from './handler.ts';
import type { MethodRegistry } from './jsonrpc.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { CustomAuth } from './customAuth.ts';
import type { Store } from '../domain/ports/store.ts';
import type { Coordination } from '../domain/ports/coordination.ts';

/** Something that runs beside the HTTP server (a worker pool, a deployer). */
export interface BackgroundModule {
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

export interface Application {
  /** Every operation's handler, by operationId (JSON-RPC endpoints included). */
  handlers: HandlerRegistry;
  /** The JSON-RPC methods by name; the server refuses to start when one is missing. */
  methods: MethodRegistry;
  modules: BackgroundModule[];
  /** Loads the project's code again (agentplane dev); requests and data are untouched. */
  reload?(): Promise<void>;
}

export interface AppFactoryDeps {
  config: ServerConfig;
  store: Store;
  /** Locks, singleton leases and wake-ups shared with the other replicas on the store. */
  coordination: Coordination;
  log: Logger;
  /** Areas add their gauges here; GET /metrics renders it. */
  metrics: Metrics;
  /** The project's custom auth (auth.path); the agent-server area enforces its decisions. */
  customAuth?: CustomAuth;
}

export type AppFactory = (deps: AppFactoryDeps) => Promise<Application>;
