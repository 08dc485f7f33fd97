// The agent server's services wired over the ports (spec/agent-server.openapi.yaml, except the A2A
// endpoint); composeAgentServer (agentServer.ts beside this) makes them an area.
import type { Locks } from '../../domain/keyedLock.ts';
import path from 'node:path';
import { openAgentDomain } from '../../domain/agent/agentDomain.ts';
import type { Logger } from '../../runtime/logging/logger.ts';
import { startWarmUps } from '../startWarmUps.ts';
import { youngCollection } from '../../runtime/idle/idleCollector.ts';
import { retentionSettings, type RetentionSweep } from '../../domain/agent/threads/retention.ts';
import { StoreCheckpointer } from '../../domain/agent/checkpoints/checkpointer.ts';
import { loadGraphs } from '../../domain/agent/graphs/graphs.ts';
import { graphCheckSubject, graphsAtStart } from '../graphsAtStart.ts';
import { warmGraphSchemas } from '../../domain/agent/graphs/graphShapes.ts';
import { staticSchemaReader } from '../../adapters/run-workers/staticSchemas.ts';
import { useGraphTypeReader } from '../../domain/ports/graphTypeReader.ts';
import { useRunSpanSettings } from '../../domain/ports/spanExport.ts';
import { runSpanSettingsFromEnv } from '../../adapters/tracing/runSpanSettings.ts';
import { RunWorkerPool } from '../../adapters/run-workers/runWorkerPool.ts';
import { RunsAhead } from '../../adapters/run-workers/runsAhead.ts';
import type { RunEnded } from '../../domain/agent/runs/runEngine.ts';
import { firstReadsKind } from '../../domain/agent/graphs/runContext.ts';
import type { AgentService } from '../../domain/agent/service.ts';
import { registerRunMetrics } from '../../domain/agent/runs/runMetrics.ts';
import { cronFiring } from '../../domain/crons/cronRuns.ts';
import { CronService } from '../../domain/crons/cronService.ts';
import { CollectionCrons } from '../../adapters/embedded/collectionCrons.ts';
import { CollectionThreads } from '../../adapters/embedded/collectionThreads.ts';
import { CollectionAssistants } from '../../adapters/embedded/collectionAssistants.ts';
import { CollectionPlainCheckpoints } from '../../adapters/embedded/collectionPlainCheckpoints.ts';
import { CollectionCheckpoints } from '../../adapters/embedded/collectionCheckpoints.ts';
import { leadingScheduler } from '../../domain/crons/scheduler.ts';
import { singletonModules } from '../../domain/singletonDuty.ts';
import type { ToolHost } from '../../domain/mcp/assistantTools.ts';
import { createMemoryStore } from '../../domain/memory/setup.ts';
import { CollectionMemoryItems } from '../../adapters/embedded/collectionMemoryItems.ts';
import { webhookSender } from '../../adapters/webhooks/webhookTransport.ts';
import { CollectionWebhookOutbox } from '../../adapters/embedded/collectionWebhookOutbox.ts';
import { uuid4 } from '../../domain/agent/ids.ts';
import { WebhookNotifier, type WebhookSettings } from '../../domain/webhooks/webhookNotifier.ts';
import { projectApiUrl } from '../../shared/projectGlobals.ts';
import { reloadProject } from '../../runtime/project/project.ts';
import { guardHandlers } from '../../handlers/agent-server/authGuard.ts';
import { operations } from '../../../generated/agent-server/operations.gen.ts';
import type { BackgroundModule } from '../../runtime/application.ts';
import type { AppFactoryDeps } from '../area.ts';
import { noteImported } from '../../runtime/project/importedFiles.ts';
import type { AgentServerAreaHandlers } from '../../handlers/agent-server/area.ts';
import { assistantHandlers } from '../../handlers/agent-server/assistants.ts';
import { cronHandlers } from '../../handlers/agent-server/crons.ts';
import { mcpHandlers } from '../../handlers/agent-server/mcp.ts';
import { metricsHandlers } from '../../handlers/agent-server/metrics.ts';
import { resultHandlers } from '../../handlers/agent-server/runResults.ts';
import { runHandlers } from '../../handlers/agent-server/runs.ts';
import { streamHandlers } from '../../handlers/agent-server/runStreams.ts';
import { protocolHandlers } from '../../handlers/agent-server/protocol.ts';
import { storeHandlers } from '../../handlers/agent-server/store.ts';
import { healthHandler, infoHandler } from '../../handlers/agent-server/system.ts';
import { threadHandlers } from '../../handlers/agent-server/threads.ts';
import { uiHandlers } from '../../handlers/agent-server/ui.ts';
import { UiBundles, type UiSettings } from '../../adapters/ui-bundling/uiBundles.ts';
import type { ProjectFile } from '../../runtime/project/project.ts';
import { discoveryOwner, requestOwner, serviceFor as servicesOf, type OwnerOf, type ServiceFor } from '../../handlers/agent-server/owner.ts';
import { langGraphReleaseNear } from '../../shared/langGraphRelease.ts';
import { compiledProjectModules } from '../../shared/projectModule.ts';

export interface AgentServerArea {
  handlers: AgentServerAreaHandlers;
  modules: BackgroundModule[];
  /** The domain API as a request's caller sees it, shared with the A2A methods. */
  serviceFor: ServiceFor;
  /** Whom a request acts for (its tenant with agent-server auth on, else ''). */
  ownerOf: OwnerOf;
  /** The domain API as a discovery request (an A2A card, read with or without a key) sees it. */
  discoveryServiceFor: ServiceFor;
  /** Loads the project file and its graphs again; runs in flight finish on the old code. */
  reload(): Promise<void>;
  /** What A2A push notifications need: hear of each run's end, the agent server of an owner, the webhook sender. */
  runEnds: { listen(listener: (ended: RunEnded) => void): void; forOwner(owner: string): AgentService; webhooks: WebhookNotifier };
}

export async function createAgentServer(deps: AppFactoryDeps): Promise<AgentServerArea> {
  const { config, store, log } = deps;
  const checkpointer = new StoreCheckpointer(new CollectionCheckpoints(store));
  const baseDir = config.configFile ? path.dirname(config.configFile) : process.cwd();
  // langgraph.json is read as upstream reads it: a function export is a graph factory
  const functions = config.configFile && path.basename(config.configFile) === 'langgraph.json' ? 'factory' : 'plain';
  // graphs that declare no schema have them read from their TypeScript types, in a worker thread
  useGraphTypeReader(staticSchemaReader);
  // a run's spans are made with the environment's tracing settings (read on the first run), and also go to the OTLP endpoint it names
  useRunSpanSettings(() => runSpanSettingsFromEnv(process.env));
  // loaded here before the first 200, or after it where an earlier start's check of the same graphs is remembered (graphsAtStart.ts)
  const graphs = await graphsAtStart({
    subject: await graphCheckSubject(config, baseDir, functions),
    load: () => loadGraphs(config.project.graphs ?? {}, baseDir, checkpointer, { functions }),
    checkpointer,
    log,
  });
  // the graphs' types are read in the background, so their schemas answer at once when asked
  const warmSchemas = async () => {
    await graphs.loaded();
    await warmGraphSchemas(graphs.ids().flatMap((id) => graphs.get(id) ?? []));
  };
  const { maxConcurrentRuns } = config;
  const ui = new UiBundles(log.child({ area: 'generative-ui' }), noteImported);
  ui.start(uiSettings(config.project, baseDir));
  // per thread, and per tenant's quota: across replicas when they share the store
  const locks: Locks = { run: (key, work) => deps.coordination.serialize(`thread:${key}`, work) };
  const memory = await createMemoryStore(new CollectionMemoryItems(store), config.project.store, baseDir, log, config.tenantQuotas, locks);
  // a webhook that is a path goes to this server's own address (the project's http.app), as upstream's
  const webhookSettings = (config.project.webhooks ?? {}) as WebhookSettings;
  const webhooks = new WebhookNotifier({
    settings: webhookSettings,
    log: log.child({ area: 'webhooks' }),
    send: webhookSender(webhookSettings.url),
    // deliveries wait in the store, each leased to one server (PostgreSQL takes expired leases in SQL)
    outbox: deps.queries.webhookOutbox ?? new CollectionWebhookOutbox(store, !deps.coordination.shared),
    // distinct per process: on the embedded store, what a previous process held is taken at once
    holder: deps.coordination.shared ? deps.coordination.replicaId : uuid4(),
    ownUrl: projectApiUrl,
  });
  const runEndListeners: ((ended: RunEnded) => void)[] = [];
  // graphs execute off the request loop, in worker threads that load the project themselves
  const kindOf = (run: { graph_id: string }) => firstReadsKind(graphs.kind(run.graph_id));
  const pool =
    config.runWorkers > 0
      ? new RunWorkerPool({
          size: config.runWorkers,
          // the modules serve compiled, if it did (compose/projectCompilation.ts): a worker imports them without tsx
          setup: { graphs: config.project.graphs ?? {}, baseDir, functions, fresh: false, modules: compiledProjectModules() },
          store,
          memory: memory.store,
          memoryMb: config.runWorkerMemoryMb,
          tenantShares: config.severalTenants === true,
          stallMs: config.runStallMs,
          // the first reads of a run of a graph the main thread knows go with the run
          kindOf,
          runs: deps.runBackend.runs,
          orderedWrite: deps.runBackend.orderedWrite,
          textPuts: deps.runBackend.textPuts,
          log: log.child({ area: 'run-workers' }),
        })
      : undefined;
  // a worker may start a thread's next run while the run before it is being recorded (where this server alone claims runs)
  const { nextOnThread } = deps.runBackend;
  const ahead = pool && nextOnThread ? new RunsAhead(pool, nextOnThread, { kindOf, log: log.child({ area: 'run-workers' }) }) : undefined;
  // assistants and the recovered queue are ready before the first request is accepted
  const domain = await openAgentDomain({
    store,
    // on PostgreSQL the searches and lists run in SQL; the embedded store's over its collections
    repositories: {
      threads: deps.queries.threads ?? new CollectionThreads(store),
      assistants: deps.queries.assistants ?? new CollectionAssistants(store),
      plainCheckpoints: new CollectionPlainCheckpoints(store),
    },
    graphs,
    checkpointer,
    log: log.child({ area: 'agent-server' }),
    maxConcurrentRuns,
    // one tenant's share binds only where there are others to leave room for
    maxRunSlotsPerTenant: config.severalTenants ? config.maxRunSlotsPerTenant : undefined,
    memoryStore: memory.store,
    retention: retentionSettings(config.project.checkpointer),
    systemAssistantConfig: config.systemAssistantConfig,
    langgraphVersion: langGraphReleaseNear(baseDir),
    execute: ahead?.execute ?? pool?.execute,
    onWithdrawn: ahead && ((runId) => ahead.withdrawn(runId)),
    onThreadDiscarded: pool && ((threadId) => pool.forget(threadId)),
    runTimeoutMs: config.runTimeoutMs,
    locks,
    quotas: config.tenantQuotas,
    runBackend: deps.runBackend,
    onRunEnded: (ended) => runEndListeners.forEach((listener) => listener(ended)),
    runEndOutbox: webhooks,
  });
  runEndListeners.push(registerRunMetrics(deps.metrics, { store, busyWorkers: () => domain.executingRuns(), workerLimit: maxConcurrentRuns }));
  const ownerOf = requestOwner(config.agentServerAuth);
  const serviceFor = servicesOf(domain, ownerOf);
  // a cron acts for its owner: its assistant and thread are the owner's, and so are its runs
  const crons = new CronService(
    deps.queries.crons ?? new CollectionCrons(store),
    (owner, id) => domain.forOwner(owner).assistants.resolve(id),
    async (owner, id) => (await domain.forOwner(owner).threads.get(id)).ok,
    undefined,
    config.tenantQuotas,
    locks,
    config.minCronIntervalSeconds,
  );
  const cronLog = log.child({ area: 'crons' });
  // one server fires crons among those sharing the store
  const cronTimer = leadingScheduler(
    deps.coordination,
    crons,
    cronFiring(
      (owner) => domain.forOwner(owner),
      (cron, err) => cronLog.warn('cron run cleanup failed', { cron_id: cron.cron_id, error: err.message }),
    ),
    cronLog,
  );
  const unguarded: AgentServerAreaHandlers = {
    ...cronHandlers(crons, ownerOf),
    // each tool's input schema is its graph's input schema
    ...mcpHandlers((ctx): ToolHost => {
      const service = serviceFor(ctx);
      // the service's runs and protocol are made when read (a spread would make them now)
      return {
        assistants: service.assistants,
        threads: service.threads,
        get runs() {
          return service.runs;
        },
        get protocol() {
          return service.protocol;
        },
        inputSchema: async (assistant) => {
          // (not from TypeScript types: listing tools must not wait seconds per graph)
          const schemas = await service.assistants.schemas(assistant.assistant_id, { readTypes: false });
          return schemas.ok ? (schemas.value.input_schema ?? undefined) : undefined;
        },
      };
    }),
    ...storeHandlers(memory.store, ownerOf),
    ...metricsHandlers(deps.metrics),
    ...healthHandler(store),
    ...infoHandler({ a2a: !config.project.http?.disable_a2a, mcp: !config.project.http?.disable_mcp }, baseDir),
    ...assistantHandlers(
      (ctx) => serviceFor(ctx).assistants,
      (ctx) => serviceFor(ctx).threads,
    ),
    ...threadHandlers((ctx) => serviceFor(ctx).threads),
    ...runHandlers((ctx) => serviceFor(ctx).runs),
    ...resultHandlers((ctx) => serviceFor(ctx).runs),
    ...streamHandlers((ctx) => serviceFor(ctx).runs),
    ...protocolHandlers((ctx) => serviceFor(ctx).protocol),
    ...uiHandlers(ui),
  };
  const handlers = deps.customAuth ? guardHandlers(unguarded, operations, deps.customAuth, serviceFor) : unguarded;
  const workers: BackgroundModule = {
    start: () => domain.start(),
    stop: async () => {
      await domain.stop();
      await pool?.stop();
    },
  };
  const warmUps = startWarmUps(
    {
      // one run worker starts once the server answers (its graphs loaded, /ok already 200): the
      // first run found none and paid for a worker's start, ~1 s of a core, most of its time to
      // its first token (issue 89); the others start with the runs that need them
      worker: config.runWorkerWarmup && pool ? () => pool.warm().then(() => log.debug('a run worker is ready ahead of the first run')) : undefined,
      // this thread's graphs where the start answered from a remembered check (a request that needs them first loads them itself)
      graphs: () => graphs.loaded(),
      schemas: config.schemaWarmup ? warmSchemas : undefined,
      busy: () => domain.executingRuns() > 0,
      youngCollection: () => youngCollection()?.(),
      // the run path through that worker, on agentplane's own graph and stores (runPathWarmUp.ts):
      // a LangGraph graph, so only where the project has one (the main thread of a project of
      // plain functions loads no LangGraph), and loaded only then
      runPath:
        config.runWorkerWarmup && pool && graphs.ids().some((id) => graphs.kind(id) !== 'plain')
          ? async () => {
              const { warmRunPath } = await import('../runPathWarmUp.ts');
              // through runs-ahead where the project's runs go through it, over a store on disk where theirs is
              const onDisk = !config.databaseUrl && !config.mock && config.dataDir !== null;
              const messages = await warmRunPath({
                executor: (stores) => (ahead ?? pool).warmUpExecutor(stores),
                maxBodyBytes: config.maxBodyBytes,
                disk: onDisk ? { fsync: config.fsync, cacheBytes: config.storeCacheMb * 1024 * 1024 } : undefined,
              });
              log.debug('the run path is warmed', { messages });
            }
          : undefined,
      // what the server's first run reads first, read once from its own run store (a thread no one has)
      ownReads:
        pool && graphs.ids().some((id) => graphs.kind(id) !== 'plain')
          ? async () => {
              await deps.runBackend.runs.firstReads(uuid4(), 'langgraph');
              log.debug("the run store's first reads are made");
            }
          : undefined,
    },
    log,
  );
  // the retention sweeps (threads and checkpoints; store items) run on one server at a time
  const retentionLog = log.child({ area: 'retention' });
  const sweeps = singletonModules(deps.coordination, 'retention', retentionLog, [retentionSweeper(domain.retention, retentionLog), memory.sweeper]);
  const reload = async () => {
    const project = config.configFile ? reloadProject(config.configFile, config.env) : { graphs: {} };
    const fresh = await loadGraphs(project.graphs ?? {}, baseDir, checkpointer, { functions, fresh: true });
    graphs.replaceWith(fresh);
    if (config.schemaWarmup) void warmSchemas();
    pool?.reload({ graphs: project.graphs ?? {}, baseDir, functions, fresh: true });
    await domain.graphsChanged();
    await ui.rebuild(uiSettings(project, baseDir));
    log.info('graphs reloaded', { graphs: graphs.ids() });
  };
  const runEnds = {
    listen: (listener: (ended: RunEnded) => void) => runEndListeners.push(listener),
    forOwner: (owner: string) => domain.forOwner(owner),
    webhooks,
  };
  return {
    handlers,
    modules: [workers, warmUps, { start: () => webhooks.start(), stop: () => webhooks.stop() }, cronTimer, sweeps],
    serviceFor,
    ownerOf,
    discoveryServiceFor: servicesOf(domain, discoveryOwner(ownerOf)),
    reload,
    runEnds,
  };
}

function uiSettings(project: ProjectFile, projectDir: string): UiSettings {
  return { modules: project.ui ?? {}, shared: project.ui_config?.shared ?? [], projectDir };
}

/** Runs the retention sweep every `sweep_interval_minutes`; a failed sweep is retried at the next one. */
function retentionSweeper(retention: RetentionSweep, log: Logger): BackgroundModule {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  return {
    start() {
      timer = setInterval(() => {
        if (running) return;
        running = retention
          .sweep()
          .then(
            (swept) => {
              if (swept.threads || swept.checkpoints) log.info('expired threads and checkpoints removed', { ...swept });
            },
            (err: Error) => log.warn('retention sweep failed; retried at the next interval', { error: err.message }),
          )
          .finally(() => (running = undefined));
      }, retention.settings.sweepIntervalMinutes * 60_000);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
