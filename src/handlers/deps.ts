// What each area (agent server, control plane, A2A) is built from: what the server made and
// what the composition root's backend provides. The areas see ports only; which backend
// stands behind them is decided once, in src/compose/backend.ts.
import type { BackendQueries } from '../domain/ports/queries.ts';
import type { AgentDomainOptions } from '../domain/agent/agentDomain.ts';
import type { Coordination } from '../domain/ports/coordination.ts';
import type { Store } from '../domain/ports/store.ts';
import type { Application, ServerDeps } from '../runtime/application.ts';

export interface AppFactoryDeps extends ServerDeps {
  store: Store;
  /** Locks, singleton leases and wake-ups shared with the other replicas on the store. */
  coordination: Coordination;
  /** The run claims and event logs: through PostgreSQL shared with the other replicas, else in process. */
  runBackend: AgentDomainOptions['runBackend'];
  /**
   * The repositories and queries the backend keeps itself (PostgreSQL: in SQL); none on the
   * embedded store, where the composition root builds them over its collections.
   */
  queries: BackendQueries;
}

export type AppFactory = (deps: AppFactoryDeps) => Promise<Application>;
