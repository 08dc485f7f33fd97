// A2A: the JSON-RPC methods (spec/a2a.openrpc.json) served on POST /a2a/{assistant_id},
// and the agent card operation (getAgentCard in spec/agent-server.openapi.yaml).
import fs from 'node:fs';
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext, RpcContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/application.ts';
import type { AgentServerArea } from '../agent-server/index.ts';
import { TaskStore } from '../../domain/a2a/taskStore.ts';
import { A2ATaskService } from '../../domain/a2a/taskService.ts';
import { messageMethods } from './messages.ts';
import { taskMethods } from './tasks.ts';
import { getAgentCard } from './getAgentCard.ts';

export interface A2AArea {
  methods: A2AMethods<RpcContext>;
  handlers: Pick<AgentServerHandlers<RequestContext>, 'getAgentCard'>;
  modules: BackgroundModule[];
}

const packageVersion = (): string =>
  (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export async function createA2A(deps: AppFactoryDeps, agentArea: AgentServerArea): Promise<A2AArea> {
  const agent = agentArea.service;
  const tasks = new A2ATaskService(agent, new TaskStore(deps.store));
  return {
    methods: { ...messageMethods(agent, tasks), ...taskMethods(agent, tasks) },
    handlers: { getAgentCard: getAgentCard(agent, deps.config.project, packageVersion()) },
    modules: [],
  };
}
