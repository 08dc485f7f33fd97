// A2A: the JSON-RPC methods (spec/a2a.openrpc.json) served by the a2aRpc operation on
// POST /a2a/{assistant_id}, and the agent card operation (getAgentCard); both operations
// are in spec/agent-server.openapi.yaml.
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { OwnerOf, ServiceFor } from '../agent-server/owner.ts';
import { TaskStore } from '../../domain/a2a/taskStore.ts';
import { A2ATaskService } from '../../domain/a2a/taskService.ts';
import { rpcDispatcher } from '../../runtime/api.ts';
import type { BackgroundModule } from '../../runtime/application.ts';
import type { AppFactoryDeps } from '../deps.ts';
import type { RequestContext } from '../../runtime/context.ts';
import { methodRegistry } from '../../runtime/jsonrpc.ts';
import { PACKAGE_VERSION } from '../../runtime/packageRoot.ts';
import { getAgentCard } from './getAgentCard.ts';
import { messageMethods } from './messages.ts';
import { a2aRpc, type A2AContext } from './rpc.ts';
import { taskMethods } from './tasks.ts';

export interface A2AArea {
  methods: A2AMethods<A2AContext>;
  handlers: Pick<AgentServerHandlers<RequestContext>, 'getAgentCard' | 'a2aRpc'>;
  modules: BackgroundModule[];
}

/** Tasks are kept apart by owner as the agent server's threads are (see agent-server/owner.ts). */
export async function createA2A(deps: AppFactoryDeps, serviceFor: ServiceFor, ownerOf: OwnerOf): Promise<A2AArea> {
  const store = new TaskStore(deps.store);
  const tasksFor = (ctx: RequestContext) => new A2ATaskService(serviceFor(ctx), store, ownerOf(ctx));
  const methods: A2AMethods<A2AContext> = { ...messageMethods(), ...taskMethods() };
  const dispatcher = await rpcDispatcher(methodRegistry<A2AContext, A2AMethods<A2AContext>>(methods), {
    validateResults: deps.config.validateResponses,
    log: deps.log,
    maxDepth: deps.config.maxBodyDepth,
  });
  return {
    methods,
    handlers: { getAgentCard: getAgentCard(serviceFor, deps.config.project, PACKAGE_VERSION), a2aRpc: a2aRpc(serviceFor, tasksFor, dispatcher) },
    modules: [],
  };
}
