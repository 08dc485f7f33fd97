// The assistant an A2A call addresses: `/a2a/{assistant_id}` names it by UUID or graph name.
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import { ApiError, type RpcContext } from '../../runtime/context.ts';
import type { AgentService } from '../../domain/agent/service.ts';

/** An unknown assistant is an HTTP 404 (the endpoint does not exist), not a JSON-RPC error. */
export async function endpointAssistant(agent: AgentService, ctx: RpcContext): Promise<Assistant> {
  const id = ctx.path.assistant_id;
  const assistant = id ? await agent.assistants.resolve(id) : undefined;
  if (!assistant) throw new ApiError(404, `Assistant '${id}' not found`);
  return assistant;
}
