// What a composition root hands the server: handlers by operationId, JSON-RPC methods by
// name (served by the handler of their JSON-RPC operation), and the modules that run beside the HTTP server. Kept apart from server.ts so that
// the areas never import the HTTP server. The runtime knows no store: the composition root
// opens one and shows the server only what it needs of it (ServerStorage).
import type { BackgroundModule } from '../shared/backgroundModule.ts';
import type { ServerConfig } from './config.ts';
import type { HandlerRegistry } from './handler.ts';
import type { MethodRegistry } from './transports/jsonrpc.ts';
import type { Logger } from './logging/logger.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { CustomAuth } from './security/customAuth.ts';
import type { GrpcMethod } from './transports/grpc/grpcServer.ts';
import type { Admission, TransportCall } from './transports/http/pipeline.ts';

export type { BackgroundModule };

export interface Application {
  /** Every operation's handler, by operationId (JSON-RPC endpoints included). */
  handlers: HandlerRegistry;
  /** The JSON-RPC methods by name; the server refuses to start when one is missing. */
  methods: MethodRegistry;
  modules: BackgroundModule[];
  /** A gRPC service the server serves on its gRPC port (config.grpcPort); none: no gRPC port. */
  grpc?: GrpcApplication;
  /** Loads the project's code again (agentplane dev); requests and data are untouched. */
  reload?(): Promise<void>;
}

/** What the server makes before the application: the composition root adds its backend to these. */
export interface ServerDeps {
  config: ServerConfig;
  log: Logger;
  /** Areas add their gauges here; GET /metrics renders it. */
  metrics: Metrics;
  /** The project's custom auth (auth.path); the agent-server area enforces its decisions. */
  customAuth?: CustomAuth;
  /** The port the application's gRPC service answers on while it does (see Application.grpc); null otherwise. */
  grpcPort(): number | null;
  /** The digests of the API keys valid for a tenant: what a server deployed for it answers. */
  keyDigestsOf?(tenant: string): string[];
}

/** A gRPC service of the application: its methods admit each call through the HTTP pipeline's door (`admit`), as the HTTP operation it stands for. */
export interface GrpcApplication {
  protoFile: string;
  /** The service's full name in the proto. */
  service: string;
  methods(admit: (call: TransportCall) => Promise<Admission>): Readonly<Record<string, GrpcMethod>>;
}

export type ApplicationFactory = (deps: ServerDeps) => Promise<Application>;

/** The storage the composition root opened, as the server sees it: counted, named, closed. */
export interface ServerStorage {
  /** Named in the start line ('embedded', 'postgresql'). */
  readonly kind: string;
  /** This server's id among the replicas sharing the storage; undefined when it has it alone. */
  readonly replicaId?: string;
  /** Records held, by collection (GET /metrics). */
  recordCounts(): Promise<{ collection: string; count: number }[]>;
  /** Called once the server serves (its graphs loaded, /ok answering): the embedded store then begins loading its history's records (issue 91). */
  serving?(): void;
  /** Drops the values it keeps in memory that nothing has used for `unusedForMs` (an idle server's release: runtime/idle/idleCollector.ts); the bytes dropped. */
  releaseUnused?(unusedForMs: number): number;
  close(): Promise<void>;
}
