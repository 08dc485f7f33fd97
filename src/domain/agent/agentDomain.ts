// Assembles the agent server's domain: the stored collections, the run lifecycle (the one
// owner of run and thread statuses), and the assistant, thread and run services behind the
// AgentService interface, one per owner (forOwner; see ownerOf in records.ts).
import type { Logger } from '../../runtime/logger.ts';
import type { Store } from '../../runtime/store/types.ts';
import { KeyedLock, type Locks } from '../keyedLock.ts';
import type { MemoryStore } from '../memory/memoryStore.ts';
import { AssistantRegistry } from './assistants.ts';
import { RunBroker } from './broker.ts';
import type { RunClaims, RunEvents } from './runSharing.ts';
import type { StoreCheckpointer } from './checkpointer.ts';
import { graphExecutor, type RunExecutor } from './graphRunners.ts';
import type { GraphRegistry } from './graphs.ts';
import { PlainStateStore } from './plainState.ts';
import { RetentionSweep, type RetentionSettings } from './retention.ts';
import type { RunRecord, ThreadRecord } from './records.ts';
import { RunLifecycle, type RunEnded } from './runLifecycle.ts';
import { Runs } from './runs.ts';
import type { RunCaller } from './runConfig.ts';
import type { AgentService, AgentServices } from './service.ts';
import { ThreadStateReader } from './threadState.ts';
import { ThreadCheckpoints } from './threadCheckpoints.ts';
import { Threads } from './threads.ts';
import { CollectionThreads } from './collectionThreads.ts';
import type { ThreadsRepository } from '../ports/threadsRepository.ts';
import type { AssistantsRepository } from '../ports/assistantsRepository.ts';
import type { RunsRepository } from '../ports/runsRepository.ts';
import { CollectionRuns } from './collectionRuns.ts';

export interface AgentDomainOptions {
  store: Store;
  graphs: GraphRegistry;
  checkpointer: StoreCheckpointer;
  log: Logger;
  maxConcurrentRuns: number;
  onRunEnded?: (ended: RunEnded) => void;
  /** The long-term memory store graphs receive as `config.store`. */
  memoryStore?: MemoryStore;
  /** Config and context of the system assistants by graph id (LANGGRAPH_CONFIG). */
  systemAssistantConfig?: Record<string, Record<string, unknown>>;
  /** Thread and checkpoint expiry (project file `checkpointer.ttl`). */
  retention: RetentionSettings;
  /** Where graphs execute (the worker pool); in-process on the request loop when absent. */
  execute?: RunExecutor;
  /** A run still executing after this long ends in `timeout` (0: no limit). */
  runTimeoutMs?: number;
  /** Serialises work per thread (across replicas when they share the store). */
  locks?: Locks;
  /** The threads' searches and counts (PostgreSQL's in SQL); over the threads collection when absent. */
  threadQueries?: ThreadsRepository;
  /** The assistants' searches and counts (PostgreSQL's in SQL); over the assistants collection when absent. */
  assistantQueries?: AssistantsRepository;
  /** The runs' lists by thread and status (PostgreSQL's in SQL); over the runs collection when absent. */
  runQueries?: RunsRepository;
  /** Replicas sharing the store: the shared event logs and run queue (in process without them). */
  sharing?: { events: RunEvents; claims: RunClaims; leaseMs: number };
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

/** Registers the system assistants and queues again the runs a previous process left. */
export async function openAgentDomain(options: AgentDomainOptions): Promise<AgentDomain> {
  const { store, graphs, checkpointer, log, maxConcurrentRuns, onRunEnded, memoryStore, retention, runTimeoutMs } = options;
  const threads = store.collection<ThreadRecord>('threads', { indexes: ['status'], containment: ['metadata'] });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const plain = new PlainStateStore(store);
  const broker = options.sharing?.events ?? new RunBroker();
  const locks = options.locks ?? new KeyedLock();
  const stateReader = new ThreadStateReader(graphs, plain, runs);
  const system = new AssistantRegistry(store, graphs, '');
  const execute = options.execute ?? graphExecutor({ graphs, plain, checkpointer, memoryStore });
  const lifecycle = new RunLifecycle({ store, runs, threads, broker, claims: options.sharing?.claims, leaseMs: options.sharing?.leaseMs, plain, checkpointer, execute, log, maxConcurrentRuns, onRunEnded, runTimeoutMs });
  await system.registerSystemAssistants(options.systemAssistantConfig);
  await lifecycle.recover();
  const queries = options.threadQueries ?? new CollectionThreads(threads);
  const runQueries = options.runQueries ?? new CollectionRuns(runs);
  const threadDeps = { threads, queries, lifecycle, stateReader, locks, checkpoints: new ThreadCheckpoints(store, stateReader, plain, checkpointer) };
  // a view per call: each holds nothing but its owner and the shared parts above
  const forOwner = (owner: string, caller?: RunCaller): AgentService => {
    const assistants = new AssistantRegistry(store, graphs, owner, options.assistantQueries);
    return { assistants, threads: new Threads(threadDeps, owner), runs: new Runs({ runs, queries: runQueries, threads, assistants, lifecycle, broker, stateReader, locks }, owner, caller) };
  };
  return {
    forOwner,
    retention: new RetentionSweep({ threads, threadsOf: (owner) => new Threads(threadDeps, owner), plain, checkpointer }, retention),
    start: () => lifecycle.start(),
    stop: () => lifecycle.stop(),
    executingRuns: () => lifecycle.executing(),
    graphsChanged: () => system.registerSystemAssistants(options.systemAssistantConfig),
  };
}
