// Agent server handlers (spec/agent-server.openapi.yaml, except the A2A endpoint).
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import { handledOperationIds } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/server.ts';
import { notImplementedHandlers } from '../notImplemented.ts';
import type { AgentService } from '../../domain/agent/service.ts';

export interface AgentServerArea {
  handlers: AgentServerHandlers<RequestContext>;
  modules: BackgroundModule[];
  /** The domain API, shared with the A2A methods. */
  service: AgentService;
}

export async function createAgentServer(_deps: AppFactoryDeps): Promise<AgentServerArea> {
  const handlers = notImplementedHandlers(handledOperationIds) as unknown as AgentServerHandlers<RequestContext>;
  return { handlers, modules: [], service: undefined as unknown as AgentService };
}
