// The handlers this area serves: every agent-server operation except the A2A ones
// (getAgentCard, a2aRpc), which belong to the A2A area (src/handlers/a2a).
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';

export type AgentServerAreaHandlers = Omit<AgentServerHandlers<RequestContext>, 'getAgentCard' | 'a2aRpc'>;
