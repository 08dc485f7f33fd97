// The handlers this area serves: every agent-server operation except the A2A ones
// (getAgentCard*, a2aRpc, the HTTP+JSON binding's a2aRest*), which belong to the A2A area (src/handlers/a2a).
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';

export type AgentServerAreaHandlers = Omit<AgentServerHandlers<RequestContext>, A2AOperationId>;

/** The operations of the A2A area. */
export type A2AOperationId = `getAgentCard${string}` | 'a2aRpc' | `a2aRest${string}`;
