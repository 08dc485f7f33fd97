// Agent server handlers (spec/agent-server.openapi.yaml, except the A2A endpoint).
import path from 'node:path';
import { openAgentDomain } from '../../domain/agent/agentDomain.ts';
import { StoreCheckpointer } from '../../domain/agent/checkpointer.ts';
import { loadGraphs } from '../../domain/agent/graphs.ts';
import type { AgentService } from '../../domain/agent/service.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/application.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { assistantHandlers } from './assistants.ts';
import { resultHandlers } from './runResults.ts';
import { runHandlers } from './runs.ts';
import { streamHandlers } from './runStreams.ts';
import { health } from './system.ts';
import { threadHandlers } from './threads.ts';

export interface AgentServerArea {
  handlers: AgentServerAreaHandlers;
  modules: BackgroundModule[];
  /** The domain API, shared with the A2A methods. */
  service: AgentService;
}

export async function createAgentServer(deps: AppFactoryDeps): Promise<AgentServerArea> {
  const { config, store, log } = deps;
  const checkpointer = new StoreCheckpointer(store);
  const baseDir = config.configFile ? path.dirname(config.configFile) : process.cwd();
  const graphs = await loadGraphs(config.project.graphs ?? {}, baseDir, checkpointer);
  const maxConcurrentRuns = Number(config.env.AGENTPLANE_MAX_CONCURRENT_RUNS ?? 8);
  if (!Number.isInteger(maxConcurrentRuns) || maxConcurrentRuns < 1) {
    throw new Error(`AGENTPLANE_MAX_CONCURRENT_RUNS must be a positive integer, got ${config.env.AGENTPLANE_MAX_CONCURRENT_RUNS}`);
  }
  // assistants and the recovered queue are ready before the first request is accepted
  const domain = await openAgentDomain({ store, graphs, checkpointer, log: log.child({ area: 'agent-server' }), maxConcurrentRuns });
  const handlers: AgentServerAreaHandlers = {
    health,
    ...assistantHandlers(domain.assistants),
    ...threadHandlers(domain.threads),
    ...runHandlers(domain.runs),
    ...resultHandlers(domain.runs),
    ...streamHandlers(domain.runs),
  };
  const workers: BackgroundModule = { start: () => domain.start(), stop: () => domain.stop() };
  return { handlers, modules: [workers], service: domain };
}
