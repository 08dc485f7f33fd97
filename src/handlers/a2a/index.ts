// A2A: the JSON-RPC methods (spec/a2a.openrpc.json) served on POST /a2a/{assistant_id},
// and the agent card operation (getAgentCard in spec/agent-server.openapi.yaml).
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import { methodNames } from '../../../generated/a2a/methods.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext, RpcContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/server.ts';
import type { AgentServerArea } from '../agent-server/index.ts';
import { notImplementedHandlers, notImplementedMethods } from '../notImplemented.ts';

export interface A2AArea {
  methods: A2AMethods<RpcContext>;
  handlers: Pick<AgentServerHandlers<RequestContext>, 'getAgentCard'>;
  modules: BackgroundModule[];
}

export async function createA2A(_deps: AppFactoryDeps, _agent: AgentServerArea): Promise<A2AArea> {
  return {
    methods: notImplementedMethods(methodNames) as unknown as A2AMethods<RpcContext>,
    handlers: notImplementedHandlers(['getAgentCard']) as unknown as A2AArea['handlers'],
    modules: [],
  };
}
