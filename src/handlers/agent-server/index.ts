// Agent server handlers (spec/agent-server.openapi.yaml, except the A2A endpoint).
import path from 'node:path';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import { AgentDomain } from '../../domain/agent/agentService.ts';
import { StoreCheckpointer } from '../../domain/agent/checkpointer.ts';
import { loadGraphs } from '../../domain/agent/graphs.ts';
import type { AgentService } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/server.ts';
import { assistantHandlers } from './assistants.ts';
import { resultHandlers } from './runResults.ts';
import { runHandlers } from './runs.ts';
import { streamHandlers } from './runStreams.ts';
import { health } from './system.ts';
import { threadHandlers } from './threads.ts';
import { storeHandlers } from './store.ts';
import { cronHandlers } from './crons.ts';
import { mcpHandlers } from './mcp.ts';
import { metricsHandlers } from './metrics.ts';
import { registerRunMetrics } from '../../domain/agent/runMetrics.ts';
import type { RunEnded } from '../../domain/agent/runLifecycle.ts';
import { WebhookNotifier, sendWebhook, type WebhookSettings } from '../../domain/webhooks/webhookNotifier.ts';
import { CronService } from '../../domain/crons/cronService.ts';
import { CronScheduler } from '../../domain/crons/scheduler.ts';
import { cronFiring } from '../../domain/crons/cronRuns.ts';
import { createMemoryStore } from '../../domain/memory/setup.ts';

/** getAgentCard belongs to the A2A area (src/handlers/a2a). */
export type AgentServerAreaHandlers = Omit<AgentServerHandlers<RequestContext>, 'getAgentCard'>;

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
  const memory = await createMemoryStore(store, config.project.store, baseDir, log);
  const webhooks = new WebhookNotifier((config.project.webhooks ?? {}) as WebhookSettings, log.child({ area: 'webhooks' }));
  const runEndListeners: ((ended: RunEnded) => void)[] = [(ended) => sendWebhook(webhooks, ended)];
  const domain = new AgentDomain({
    store,
    graphs,
    checkpointer,
    log: log.child({ area: 'agent-server' }),
    maxConcurrentRuns,
    memoryStore: memory.store,
    onRunEnded: (ended) => runEndListeners.forEach((listener) => listener(ended)),
  });
  runEndListeners.push(registerRunMetrics(deps.metrics, { store, busyWorkers: () => domain.executingRuns(), workerLimit: maxConcurrentRuns }));
  // assistants and the recovered queue are ready before the first request is accepted
  await domain.prepare();
  const crons = new CronService(store, (id) => domain.resolveAssistant(id), async (id) => (await domain.getThread(id)) !== undefined);
  const cronLog = log.child({ area: 'crons' });
  const scheduler = new CronScheduler(crons, cronFiring(domain, (cron, err) => cronLog.warn('cron run cleanup failed', { cron_id: cron.cron_id, error: err.message })), cronLog);
  const handlers: AgentServerAreaHandlers = {
    ...cronHandlers(crons),
    ...mcpHandlers(domain),
    ...storeHandlers(memory.store),
    ...metricsHandlers(deps.metrics),
    health,
    ...assistantHandlers(domain),
    ...threadHandlers(domain),
    ...runHandlers(domain),
    ...resultHandlers(domain),
    ...streamHandlers(domain),
  };
  const workers: BackgroundModule = { start: () => domain.startWorkers(), stop: () => domain.stop() };
  return { handlers, modules: [workers, memory.sweeper, { stop: () => webhooks.stop() }, { start: () => scheduler.start(), stop: () => scheduler.stop() }], service: domain };
}
