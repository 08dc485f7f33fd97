// Assembles the agent server's domain: the stored collections, the run lifecycle (the one
// owner of run and thread statuses), and the assistant, thread and run services behind the
// AgentService interface.
import type { Logger } from '../../runtime/logger.ts';
import type { Store } from '../../runtime/store/types.ts';
import { KeyedLock } from '../keyedLock.ts';
import type { MemoryStore } from '../memory/memoryStore.ts';
import { AssistantRegistry } from './assistants.ts';
import { RunBroker } from './broker.ts';
import type { StoreCheckpointer } from './checkpointer.ts';
import { graphExecutor, type RunExecutor } from './graphRunners.ts';
import type { GraphRegistry } from './graphs.ts';
import { PlainStateStore } from './plainState.ts';
import { RetentionSweep, type RetentionSettings } from './retention.ts';
import type { RunRecord, ThreadRecord } from './records.ts';
import { RunLifecycle, type RunEnded } from './runLifecycle.ts';
import { Runs } from './runs.ts';
import type { AgentService } from './service.ts';
import { ThreadStateReader } from './threadState.ts';
import { ThreadCheckpoints } from './threadCheckpoints.ts';
import { Threads } from './threads.ts';

export interface AgentDomainOptions {
  store: Store;
  graphs: GraphRegistry;
  checkpointer: StoreCheckpointer;
  log: Logger;
  maxConcurrentRuns: number;
  onRunEnded?: (ended: RunEnded) => void;
  /** The long-term memory store graphs receive as `config.store`. */
  memoryStore?: MemoryStore;
  /** Thread and checkpoint expiry (project file `checkpointer.ttl`). */
  retention: RetentionSettings;
  /** Where graphs execute (the worker pool); in-process on the request loop when absent. */
  execute?: RunExecutor;
  /** A run still executing after this long ends in `timeout` (0: no limit). */
  runTimeoutMs?: number;
}

export interface AgentDomain extends AgentService {
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
  const threads = store.collection<ThreadRecord>('threads', { indexes: ['status'] });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const plain = new PlainStateStore(store);
  const broker = new RunBroker();
  const locks = new KeyedLock();
  const stateReader = new ThreadStateReader(graphs, plain, runs);
  const assistants = new AssistantRegistry(store, graphs);
  const execute = options.execute ?? graphExecutor({ graphs, plain, checkpointer, memoryStore });
  const lifecycle = new RunLifecycle({ store, runs, threads, broker, plain, checkpointer, execute, log, maxConcurrentRuns, onRunEnded, runTimeoutMs });
  await assistants.registerSystemAssistants();
  await lifecycle.recover();
  const threadService = new Threads({ threads, lifecycle, stateReader, locks, checkpoints: new ThreadCheckpoints(store, stateReader, plain, checkpointer) });
  return {
    assistants,
    threads: threadService,
    retention: new RetentionSweep({ threads, service: threadService, plain, checkpointer }, retention),
    runs: new Runs({ runs, threads, assistants, lifecycle, broker, stateReader, locks }),
    start: () => lifecycle.start(),
    stop: () => lifecycle.stop(),
    executingRuns: () => lifecycle.executing(),
    graphsChanged: () => assistants.registerSystemAssistants(),
  };
}
