// An area is the unit of assembly: the control plane, the agent server or A2A, each composed
// from the ports alone (src/compose/areas/), served alone or merged with the others into the
// application the server runs. What an area is built from is declared here, in compose, not in
// the handlers: the handlers are given their services, they do not assemble them.
import { handledOperationIds as controlPlaneIds } from '../../generated/control-plane/operations.gen.ts';
import { handledOperationIds as agentServerIds } from '../../generated/agent-server/operations.gen.ts';
import type { TextPutWrites } from '../adapters/embedded/textPut.ts';
import type { BackendQueries } from '../domain/ports/queries.ts';
import type { AgentDomainOptions } from '../domain/agent/agentDomain.ts';
import type { RunRecord } from '../domain/agent/records.ts';
import type { Coordination } from '../domain/ports/coordination.ts';
import type { Store, WriteOp } from '../domain/ports/store.ts';
import type { Application, BackgroundModule, GrpcApplication, ServerDeps } from '../runtime/application.ts';
import type { HandlerRegistry } from '../runtime/handler.ts';
import type { MethodRegistry } from '../runtime/transports/jsonrpc.ts';

export type AreaName = 'control-plane' | 'agent-server' | 'a2a';

/** Every area, in the order the application composes them (the agent server's graphs reach the control plane's auth service). */
export const AREAS: readonly AreaName[] = ['control-plane', 'agent-server', 'a2a'];

/** What the areas are built from: what the server made, and the ports the composition root's backend provides. */
export interface AreaPorts extends ServerDeps {
  store: Store;
  /** Locks, singleton leases and wake-ups shared with the other replicas on the store. */
  coordination: Coordination;
  /** The run claims and event logs: through PostgreSQL shared with the other replicas, else in process. */
  runBackend: RunBackend;
  /**
   * The repositories and queries the backend keeps itself (PostgreSQL: in SQL); none on the
   * embedded store, where the composition root builds them over its collections.
   */
  queries: BackendQueries;
}

/** What the composition root makes of the backend for the agent server's runs. */
export type RunBackend = AgentDomainOptions['runBackend'] & {
  /**
   * The run this server claims next on a thread once its running run ends, where it alone
   * claims the threads' runs (the embedded store): run workers then start that run ahead
   * (adapters/run-workers/runsAhead.ts). Null where replicas share the queue (PostgreSQL).
   */
  nextOnThread: ((threadId: string) => Promise<RunRecord | null>) | null;
  /**
   * How run workers' ordered checkpoint writes are written (PostgreSQL: with the events of this
   * server's runs waiting in their window, one statement for both); absent: the store's write.
   */
  orderedWrite?: (ops: WriteOp[]) => Promise<void>;
  /**
   * The collections whose puts a run worker sends as their text and kept fields alone, and the
   * write that takes them (the embedded store writing a journal: adapters/embedded/textPut.ts).
   */
  textPuts?: TextPutWrites;
};

/** The application made from the ports: every area, or those asked for. */
export type AppFactory = (deps: AreaPorts) => Promise<Application>;
/** The ports under their older name: what an application factory is given. */
export type AppFactoryDeps = AreaPorts;

/** One area, composed: its operations' handlers, its JSON-RPC methods, what runs beside them. */
export interface Area {
  name: AreaName;
  /** Its operations' handlers by operationId (areaOperations(name) exactly). */
  handlers: HandlerRegistry;
  /** The JSON-RPC methods (A2A's), served by its JSON-RPC operation. */
  methods?: MethodRegistry;
  modules: BackgroundModule[];
  /** A gRPC service served on the server's gRPC port. */
  grpc?: GrpcApplication;
  /** Loads the project's code again (agentplane dev). */
  reload?(): Promise<void>;
}

/** The operations of A2A: its cards, its JSON-RPC endpoint and the HTTP+JSON binding, declared in the agent server's document. */
const isA2A = (operationId: string) => operationId.startsWith('getAgentCard') || operationId === 'a2aRpc' || operationId.startsWith('a2aRest');

/** The operationIds an area serves: a server of some areas answers the others' routes 404, as unknown routes. */
export function areaOperations(name: AreaName): readonly string[] {
  if (name === 'control-plane') return controlPlaneIds;
  return agentServerIds.filter((id) => (name === 'a2a') === isA2A(id));
}

/** The areas merged into the application the server runs. */
export function mergeAreas(areas: readonly Area[]): Application {
  const reloads = areas.flatMap((area) => (area.reload ? [area.reload] : []));
  const grpc = areas.find((area) => area.grpc)?.grpc;
  return {
    handlers: Object.assign({}, ...areas.map((area) => area.handlers)) as HandlerRegistry,
    methods: Object.assign({}, ...areas.map((area) => area.methods ?? {})) as MethodRegistry,
    modules: areas.flatMap((area) => area.modules),
    ...(grpc ? { grpc } : {}),
    reload: async () => {
      for (const reload of reloads) await reload();
    },
  };
}
