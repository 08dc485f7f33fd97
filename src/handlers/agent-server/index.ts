// Agent server handlers (spec/agent-server.openapi.yaml, except the A2A endpoint).
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import { handledOperationIds } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/server.ts';
import { notImplementedHandlers } from '../notImplemented.ts';
import type { AgentService } from '../../domain/agent/service.ts';

/** getAgentCard belongs to the A2A area (src/handlers/a2a). */
export type AgentServerAreaHandlers = Omit<AgentServerHandlers<RequestContext>, 'getAgentCard'>;

export interface AgentServerArea {
  handlers: AgentServerAreaHandlers;
  modules: BackgroundModule[];
  /** The domain API, shared with the A2A methods. */
  service: AgentService;
}

export async function createAgentServer(_deps: AppFactoryDeps): Promise<AgentServerArea> {
  const ids = handledOperationIds.filter((id) => id !== 'getAgentCard');
  const handlers = notImplementedHandlers(ids) as unknown as AgentServerAreaHandlers;
  return { handlers, modules: [], service: undefined as unknown as AgentService };
}
