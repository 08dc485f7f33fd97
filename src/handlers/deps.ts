// What each area (agent server, control plane, A2A) is built from: what the server made and
// what the composition root's backend provides. The areas see ports only; which backend
// stands behind them is decided once, in src/compose/backend.ts.
import type { BackendQueries } from '../domain/ports/queries.ts';
import type { AgentDomainOptions } from '../domain/agent/agentDomain.ts';
import type { RunRecord } from '../domain/agent/records.ts';
import type { Coordination } from '../domain/ports/coordination.ts';
import type { Store } from '../domain/ports/store.ts';
import type { Application, ServerDeps } from '../runtime/application.ts';

export interface AppFactoryDeps extends ServerDeps {
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

export type AppFactory = (deps: AppFactoryDeps) => Promise<Application>;

/** What the composition root makes of the backend for the agent server's runs. */
export type RunBackend = AgentDomainOptions['runBackend'] & {
  /**
   * The run this server claims next on a thread once its running run ends, where it alone
   * claims the threads' runs (the embedded store): run workers then start that run ahead
   * (adapters/run-workers/runsAhead.ts). Null where replicas share the queue (PostgreSQL).
   */
  nextOnThread: ((threadId: string) => Promise<RunRecord | null>) | null;
};
