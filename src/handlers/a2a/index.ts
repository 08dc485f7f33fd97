// A2A JSON-RPC methods (spec/a2a.openrpc.json), served on POST /a2a/{assistant_id}.
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import { methodNames } from '../../../generated/a2a/methods.gen.ts';
import type { RpcContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/server.ts';
import type { AgentServerArea } from '../agent-server/index.ts';
import { notImplementedMethods } from '../notImplemented.ts';

export async function createA2A(_deps: AppFactoryDeps, _agent: AgentServerArea): Promise<{ methods: A2AMethods<RpcContext>; modules: BackgroundModule[] }> {
  return { methods: notImplementedMethods(methodNames) as unknown as A2AMethods<RpcContext>, modules: [] };
}
