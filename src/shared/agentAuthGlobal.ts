// How a graph reaches the auth service in process (src/sdk/auth.ts): a function set in every
// thread that runs project code, found through `Symbol.for` so any copy of the helper sees it.
// The main thread's calls the auth service (compose/application.ts); a run worker's asks the
// main thread (workers/runWorker.ts), which answers with its own.

const KEY = Symbol.for('agentplane:agent-auth');

export interface AgentAuthRequest {
  /** The run asking: its owner is the tenant whose providers are used. */
  runId: string;
  /** Absent: the graph named none (the auth service picks the local user where runs have no owner). */
  userId?: string;
  provider: string;
  scopes: string[];
  /** The access token a resource server refused (401): refreshed at once, else a new flow. */
  refusedToken?: string;
}

export type AgentAuthAnswer = { status: 'completed'; token: string } | { status: 'pending'; url: string; auth_id: string };

export type AgentAuthCall = (request: AgentAuthRequest) => Promise<AgentAuthAnswer>;

type Globals = { [KEY]?: AgentAuthCall };

export function installAgentAuth(call: AgentAuthCall): void {
  (globalThis as Globals)[KEY] = call;
}

export function agentAuthCall(): AgentAuthCall | undefined {
  return (globalThis as Globals)[KEY];
}
