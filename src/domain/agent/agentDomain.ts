// Assembles the agent server's domain over the repositories compose passes in: the run engine
// (the one owner of run and thread statuses), and the assistant, thread and run services
// behind the AgentService interface, one per owner (forOwner; see ownerOf in records.ts).
import type { TenantQuotas } from '../tenantQuotas.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../ports/store.ts';
import type { Locks } from '../keyedLock.ts';
import type { MemoryStore } from '../memory/memoryStore.ts';
import { AssistantRegistry } from './assistants.ts';
import type { RunClaims } from '../ports/runClaims.ts';
import type { RunEventLog } from '../ports/runEventLog.ts';
import type { StoreCheckpointer } from './checkpoints/checkpointer.ts';
import { graphExecutor, type RunExecutor } from './graphs/graphRunners.ts';
import { firstReadsKind, type RunExecutorWithReads } from './graphs/runContext.ts';
import type { RunStore } from '../ports/runStore.ts';
import type { GraphRegistry } from './graphs/graphs.ts';
import { PlainStateStore } from './checkpoints/plainState.ts';
import { RetentionSweep, type RetentionSettings } from './threads/retention.ts';
import { RunEngine, type RunEnded } from './runs/runEngine.ts';
import type { RunEndOutbox } from './runs/runEndRecord.ts';
import { ThreadProtocol } from './protocol/threadProtocol.ts';
import { Runs } from './runs/runs.ts';
import type { RunCaller } from './runs/runConfig.ts';
import type { AgentService, AgentServices } from './service.ts';
import { ThreadStateReader } from './threads/threadState.ts';
import { ThreadCheckpoints } from './threads/threadCheckpoints.ts';
import { Threads } from './threads/threads.ts';
import type { ThreadsRepository } from '../ports/threadsRepository.ts';
import type { AssistantsRepository } from '../ports/assistantsRepository.ts';
import type { PlainCheckpointsRepository } from '../ports/plainCheckpointsRepository.ts';
import { SharedThreadRuns } from './protocol/sharedThreadRuns.ts';
import { ThreadFeeds } from './protocol/threadFeed.ts';

export interface AgentDomainOptions {
  /** What the run engine reads and writes its runs and threads through (runEngine.ts). */
  store: Store;
  /** The threads and assistants, their searches and lists (PostgreSQL's in SQL), and the plain graphs' checkpoints. */
  repositories: { threads: ThreadsRepository; assistants: AssistantsRepository; plainCheckpoints: PlainCheckpointsRepository };
  graphs: GraphRegistry;
  checkpointer: StoreCheckpointer;
  log: Logger;
  maxConcurrentRuns: number;
  /** The most of those slots one tenant's runs hold at once (runFairShare.ts); no bound when absent. */
  maxRunSlotsPerTenant?: number;
  onRunEnded?: (ended: RunEnded) => void;
  /** What is written with a run's final end (its webhook's delivery: webhooks/webhookNotifier.ts). */
  runEndOutbox?: RunEndOutbox;
  /** The long-term memory store graphs receive as `config.store`. */
  memoryStore?: MemoryStore;
  /** Config and context of the system assistants by graph id (LANGGRAPH_CONFIG). */
  systemAssistantConfig?: Record<string, Record<string, unknown>>;
  /** Thread and checkpoint expiry (project file `checkpointer.ttl`). */
  retention: RetentionSettings;
  /** The LangGraph release the project's graphs run on (runs executed in process name it in their metadata). */
  langgraphVersion?: string;
  /** Where graphs execute (the worker pool); in-process on the request loop when absent. */
  execute?: RunExecutor;
  /** Told of each pending run taken out of the queue unrun (cancelled, deleted): the worker pool may have offered it to start ahead. */
  onWithdrawn?: (runId: string) => void;
  /** Told of each thread deleted: the worker pool forgets which worker its runs went to. */
  onThreadDiscarded?: (threadId: string) => void;
  /** A run still executing after this long ends in `timeout` (0: no limit). */
  runTimeoutMs?: number;
  /** Serialises work per thread (across replicas when they share the store). */
  locks: Locks;
  /** What one tenant may hold (domain/tenantQuotas.ts): its threads here; unbounded when absent. */
  quotas?: Partial<TenantQuotas>;
  /** Where runs are queued and their events kept: in process, or shared by replicas (picked by the composition). */
  runBackend: {
    /** The runs, their lists and their first reads (PostgreSQL's in SQL); the run engine's records beside its claims. */
    runs: RunStore;
    events: RunEventLog;
    claims: RunClaims;
    leaseMs: number;
  };
}

export interface AgentDomain extends AgentServices {
  /** Starts the run workers (after the HTTP server listens). */
  start(): void;
  /** Stops taking runs; runs in flight resume after a restart. */
  stop(): Promise<void>;
  /** Expired threads and checkpoints go (the background sweep calls this). */
  retention: RetentionSweep;
  /** How many runs are executing now (metrics). */
  executingRuns(): number;
  /** After the graphs changed (dev reload): system assistants for new graph ids. */
  graphsChanged(): Promise<void>;
}

const MAX_CACHED_OWNERS = 10_000;

/** Registers the system assistants and queues again the runs a previous process left. */
export async function openAgentDomain(options: AgentDomainOptions): Promise<AgentDomain> {
  const { store, graphs, checkpointer, log, maxConcurrentRuns, maxRunSlotsPerTenant, onRunEnded, memoryStore, retention, runTimeoutMs, locks } = options;
  const repositories = options.repositories;
  const plain = new PlainStateStore(repositories.plainCheckpoints);
  const eventLog = options.runBackend.events;
  const runs = options.runBackend.runs;
  const stateReader = new ThreadStateReader(graphs, plain, runs);
  const system = new AssistantRegistry(repositories.assistants, graphs, '');
  const execute =
    options.execute ?? readingFirst(graphExecutor({ graphs, plain, checkpointer, memoryStore, langgraphVersion: options.langgraphVersion }), graphs, runs);
  const claims = options.runBackend.claims;
  const engine = new RunEngine({
    records: runs,
    eventLog,
    claims,
    leaseMs: options.runBackend.leaseMs,
    plain,
    checkpointer,
    threadValues: (thread) => stateReader.currentValues(thread),
    execute,
    onWithdrawn: options.onWithdrawn,
    onThreadDiscarded: options.onThreadDiscarded,
    log,
    maxConcurrentRuns,
    maxRunSlotsPerTenant,
    onRunEnded,
    outbox: options.runEndOutbox,
    runTimeoutMs,
  });
  await system.registerSystemAssistants(options.systemAssistantConfig);
  await engine.recover();
  const threadDeps = {
    threads: repositories.threads,
    engine,
    eventLog,
    stateReader,
    locks,
    checkpoints: new ThreadCheckpoints(store, stateReader, plain, checkpointer),
    quotas: options.quotas,
  };
  // An owner's assistants and threads hold nothing but the owner and the shared parts above,
  // so they are made once per owner rather than on every request; the runs view carries the
  // request's caller, so it is per call.
  const views = new Map<string, { assistants: AssistantRegistry; threads: Threads }>();
  const viewsOf = (owner: string) => {
    let found = views.get(owner);
    if (!found) {
      // owners are tenants: few, but nothing bounds them, so the map is not allowed to grow without end
      if (views.size >= MAX_CACHED_OWNERS) views.clear();
      found = { assistants: new AssistantRegistry(repositories.assistants, graphs, owner), threads: new Threads(threadDeps, owner) };
      views.set(owner, found);
    }
    return found;
  };
  const runsDeps = { runs, threads: repositories.threads, engine, claims, eventLog, stateReader, locks, quotas: options.quotas };
  // one per server: every owner's readers of a thread share its listing, and its feed
  const threadRuns = new SharedThreadRuns(runs, eventLog);
  const protocolDeps = {
    runs,
    threads: repositories.threads,
    eventLog,
    threadRuns,
    feeds: new ThreadFeeds({ runs, eventLog, threadRuns }),
  };
  const forOwner = (owner: string, caller?: RunCaller): AgentService => {
    const { assistants, threads: ownThreads } = viewsOf(owner);
    return new OwnerService(assistants, ownThreads, owner, caller, runsDeps, protocolDeps);
  };
  return {
    forOwner,
    retention: new RetentionSweep({ threads: repositories.threads, threadsOf: (owner) => new Threads(threadDeps, owner), plain, checkpointer }, retention),
    start: () => engine.start(),
    stop: () => engine.stop(),
    executingRuns: () => engine.executing(),
    graphsChanged: () => system.registerSystemAssistants(options.systemAssistantConfig),
  };
}

/**
 * The agent server as one owner sees it, for one request. Its runs and protocol views are made
 * when first read: most requests (a thread read, an assistant search, the probes) use one
 * service of the four, and making the runs view and the protocol's command set on every one
 * of them cost a tenth of a thread read's CPU. Getters on the prototype, not a literal per
 * request (see HttpRequestContext in runtime/transports/http/pipeline.ts for why).
 */
class OwnerService implements AgentService {
  private ownRuns: Runs | undefined;
  private ownProtocol: ThreadProtocol | undefined;

  constructor(
    readonly assistants: AssistantRegistry,
    readonly threads: Threads,
    private readonly owner: string,
    private readonly caller: RunCaller | undefined,
    private readonly runsDeps: Omit<ConstructorParameters<typeof Runs>[0], 'assistants'>,
    private readonly protocolDeps: Omit<ConstructorParameters<typeof ThreadProtocol>[0], 'service'>,
  ) {}

  get runs(): Runs {
    return (this.ownRuns ??= new Runs({ ...this.runsDeps, assistants: this.assistants }, this.owner, this.caller));
  }

  get protocol(): ThreadProtocol {
    return (this.ownProtocol ??= new ThreadProtocol({ ...this.protocolDeps, service: this }, this.owner));
  }
}

/**
 * The in-process executor, given what its run reads first: a run of a graph that reads its
 * thread (a plain function's or LangGraph's) then starts without those round trips (on
 * PostgreSQL one statement for three). A failed read costs nothing but them: the run reads.
 */
function readingFirst(execute: RunExecutorWithReads, graphs: GraphRegistry, runs: Pick<RunStore, 'firstReads'>): RunExecutor {
  return async (run, signal, publish, started) => {
    const kind = firstReadsKind(graphs.kind(run.graph_id));
    return execute(run, signal, publish, started, kind ? await runs.firstReads(run.thread_id, kind).catch(() => ({})) : undefined);
  };
}
