// The agent server's domain API, used by its HTTP handlers and by the A2A methods: one
// interface per resource (assistants, threads, runs). Implemented in this folder
// (assistants.ts, threads.ts, runs.ts; run and thread statuses in runEngine.ts, runs stored and
// deleted in runWrites.ts) and
// assembled by agentDomain.ts.
import type {
  Assistant,
  AssistantRunMetrics,
  AssistantCountRequest,
  AssistantCreate,
  AssistantPatch,
  AssistantSearchRequest,
  AssistantVersion,
  AssistantVersionsRequest,
  Run,
  RunCreate,
  RunResult,
  RunsCancelRequest,
  Thread,
  ThreadCountRequest,
  ThreadCreateRequest,
  TraceSpan,
  ThreadHistoryRequest,
  ThreadPatchRequest,
  ThreadPruneRequest,
  ThreadSearchRequest,
  ThreadState,
  ThreadStateUpdateRequest,
  ThreadStateUpdateResult,
} from '../../../generated/agent-server/types.gen.ts';
import type { Outcome } from '../outcome.ts';
import type { Drawing, GraphSchemas, SubgraphSchemas } from './graphs/graphShapes.ts';

import type { ThreadStreamMode } from './threads/threadStream.ts';
import type { RunCaller } from './runs/runConfig.ts';
import type { RunEvent } from './runs/runEvent.ts';
import type { Command as ProtocolCommand, CommandReply } from '../../../generated/protocol/types.gen.ts';
import type { EventFilter } from './protocol/events.ts';
import type { FeedStream } from './protocol/threadFeed.ts';

export type { RunEvent };

export interface AssistantService {
  /** Accepts an assistant UUID or a registered graph name. */
  resolve(idOrGraph: string): Promise<Assistant | undefined>;
  /** resolve(), as an outcome for the operations that address one assistant. */
  get(idOrGraph: string): Promise<Outcome<Assistant, 'not_found'>>;
  /** Whether the assistant's graph keeps a top-level `messages` list in its state. */
  hasMessages(assistant: Assistant): Promise<boolean>;
  search(query?: AssistantSearchRequest): Promise<Assistant[]>;
  create(body: AssistantCreate): Promise<Outcome<Assistant, 'not_found' | 'conflict'>>;
  /** A new version with the given fields (metadata merged), made the latest. */
  patch(idOrGraph: string, body: AssistantPatch): Promise<Outcome<Assistant, 'not_found' | 'conflict'>>;
  delete(idOrGraph: string): Promise<Outcome<void, 'not_found' | 'conflict'>>;
  count(query?: AssistantCountRequest): Promise<number>;
  listVersions(idOrGraph: string, query?: AssistantVersionsRequest): Promise<Outcome<AssistantVersion[], 'not_found'>>;
  setLatest(idOrGraph: string, version: number): Promise<Outcome<Assistant, 'not_found' | 'conflict'>>;
  drawing(idOrGraph: string, xray: boolean | number): Promise<Outcome<Drawing, 'not_found'>>;
  /** `readTypes: false` skips reading an Annotation graph's TypeScript types (seconds, in a worker). */
  schemas(idOrGraph: string, options?: { readTypes?: boolean }): Promise<Outcome<GraphSchemas, 'not_found'>>;
  subgraphs(idOrGraph: string, namespace: string | undefined, recurse: boolean): Promise<Outcome<Record<string, SubgraphSchemas>, 'not_found'>>;
}

/** A checkpoint as requests name it (`checkpoint` objects of the SDKs). */
export interface CheckpointSelector {
  checkpoint_id?: string;
  checkpoint_ns?: string;
}

export interface ThreadService {
  /**
   * `if_exists: do_nothing` returns the existing thread; otherwise an existing id is a
   * conflict. `supersteps` that cannot be applied leave no thread behind (invalid).
   */
  create(body?: ThreadCreateRequest): Promise<Outcome<Thread, 'conflict' | 'invalid' | 'quota_exceeded'>>;
  /** With `include.ttl`, the thread's expiry. */
  get(threadId: string, include?: { ttl?: boolean }): Promise<Outcome<Thread, 'not_found'>>;
  /** The thread's metadata, as `get` answers it, read without its state (whose values revive every message). */
  metadata(threadId: string): Promise<Outcome<Record<string, unknown>, 'not_found'>>;
  search(query?: ThreadSearchRequest): Promise<Thread[]>;
  count(query?: ThreadCountRequest): Promise<number>;
  /** Merges metadata; `ttl` sets the expiry. */
  patch(threadId: string, body: ThreadPatchRequest): Promise<Outcome<Thread, 'not_found'>>;
  /** Rolls back the thread's runs in flight, then removes the thread, its runs and its state. */
  delete(threadId: string): Promise<Outcome<void, 'not_found'>>;
  /** Deletes the caller's threads whose metadata names the assistant (`delete_threads`); answers how many. */
  deleteOfAssistant(assistantId: string): Promise<number>;
  /** A new idle thread with the same metadata and every checkpoint (not the runs). */
  copy(threadId: string, as?: { thread_id?: unknown; metadata?: unknown }): Promise<Outcome<Thread, 'not_found' | 'quota_exceeded'>>;
  /** `delete` or `keep_latest` each listed thread; answers how many were pruned. */
  prune(body: ThreadPruneRequest): Promise<number>;
  /** The state as the graph of the thread's latest run keeps it. */
  getState(threadId: string, options?: { subgraphs?: boolean }): Promise<Outcome<ThreadState, 'not_found'>>;
  /** The state at a checkpoint (the latest of its namespace without `checkpoint_id`). */
  getStateAt(threadId: string, checkpoint: CheckpointSelector, options?: { subgraphs?: boolean }): Promise<Outcome<ThreadState, 'not_found'>>;
  /** Checkpoints newest first, as states. */
  history(
    threadId: string,
    query: Omit<ThreadHistoryRequest, 'before'> & { before?: string | CheckpointSelector },
  ): Promise<Outcome<ThreadState[], 'not_found'>>;
  /** A new checkpoint with `values` applied as `as_node`, child of the latest or of `checkpoint`. */
  updateState(threadId: string, body: ThreadStateUpdateRequest): Promise<Outcome<ThreadStateUpdateResult, 'not_found' | 'invalid' | 'busy'>>;
  /** Merges metadata into the latest checkpoint's metadata (not_found without one). */
  patchStateMetadata(threadId: string, metadata: Record<string, unknown>): Promise<Outcome<void, 'not_found'>>;
}

export interface RunService {
  /** Creates (queues) a run; honours multitask_strategy and if_not_exists like POST /threads/{id}/runs. */
  create(threadId: string, body: RunCreate): Promise<Outcome<Run, 'not_found' | 'busy' | 'quota_exceeded'>>;
  get(threadId: string, runId: string): Promise<Outcome<Run, 'not_found'>>;
  /** Figures of the owner's runs of an assistant (id or graph id) created in the last windowS seconds. */
  assistantMetrics(assistantId: string, windowS: number): Promise<Outcome<AssistantRunMetrics, 'not_found'>>;
  /** The run's trace spans (tracing/runTracer.ts), oldest first; [] until the run has ended. */
  trace(threadId: string, runId: string): Promise<Outcome<TraceSpan[], 'not_found'>>;
  list(threadId: string, query: { limit?: number; offset?: number; status?: string }): Promise<Outcome<Run[], 'not_found'>>;
  /** Resolves with the run once it is no longer pending or running (or when `signal` aborts). */
  wait(threadId: string, runId: string, signal?: AbortSignal): Promise<Outcome<Run, 'not_found'>>;
  /** The join/wait answer of a finished run: final values, `__interrupt__` or `__error__`. */
  result(threadId: string, runId: string): Promise<RunResult>;
  /** Cancels a pending or running run (status becomes interrupted); rollback also deletes it. A finished run is left as it is. */
  cancel(threadId: string, runId: string, action?: 'interrupt' | 'rollback'): Promise<Outcome<Run, 'not_found'>>;
  /** A run on a new thread of its own, deleted when the run ends unless `on_completion` is `keep`. */
  createStateless(body: RunCreate): Promise<Outcome<Run, 'not_found' | 'quota_exceeded'>>;
  /** Several stateless runs; nothing is created when one assistant is unknown. */
  createBatch(bodies: RunCreate[]): Promise<Outcome<Run[], 'not_found' | 'quota_exceeded'>>;
  /** Deletes the run (rolled back first while in flight). */
  delete(threadId: string, runId: string): Promise<Outcome<void, 'not_found'>>;
  /** Cancels by status, by thread or by run ids. */
  cancelMany(selection: RunsCancelRequest, action?: 'interrupt' | 'rollback'): Promise<Outcome<void, 'not_found'>>;
  /** Whether the run's events can still be read by its id alone. */
  streamable(runId: string): Promise<Outcome<void, 'not_found'>>;
  /** The run's events from the start (or after lastEventId), live until the run ends. */
  events(runId: string, options?: { lastEventId?: string; signal?: AbortSignal }): AsyncIterable<RunEvent>;
  /** The events of the thread's runs, one run after another, until `signal` aborts (see threadStream.ts). */
  threadEvents(
    threadId: string,
    options: { modes: ThreadStreamMode[]; lastEventId?: string; signal?: AbortSignal },
  ): Promise<Outcome<AsyncIterable<RunEvent>, 'not_found'>>;
}

/** The thread-centric streaming protocol (protocol/): its commands and its event stream. */
export interface ProtocolService {
  command(threadId: string, command: ProtocolCommand): Promise<Outcome<CommandReply, 'not_found' | 'busy' | 'quota_exceeded'>>;
  /** Whether the caller may use the thread's protocol (another owner's thread is missing). */
  visible(threadId: string): Promise<Outcome<true, 'not_found'>>;
  /** The thread's protocol events through the filter, live until `signal` aborts. */
  events(threadId: string, filter: EventFilter, signal?: AbortSignal): Promise<Outcome<FeedStream, 'not_found'>>;
}

/** The agent server as one owner sees it. */
export interface AgentService {
  assistants: AssistantService;
  threads: ThreadService;
  runs: RunService;
  protocol: ProtocolService;
}

/**
 * The agent server, split by owner: a tenant while agent-server auth is on, '' (one space
 * shared by every caller) while it is off. An owner sees only its own threads (with their
 * runs) and assistants, plus the system assistants; another owner's are answered exactly as
 * missing ones, though their ids cannot be taken.
 */
export interface AgentServices {
  /** `caller`: who makes the request, stamped on the runs it creates (see runConfig.ts). */
  forOwner(owner: string, caller?: RunCaller): AgentService;
}
