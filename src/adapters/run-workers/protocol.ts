// The messages between the run worker pool (main thread) and its workers. Workers never
// write the store themselves: reads and writes go to the main thread as calls it answers, so
// checkpoints and thread state keep one writer whatever the backend.
import type { TextPutCollections } from '../embedded/textPut.ts';
import type { GraphSpec, LoadOptions } from '../../domain/agent/graphs/graphs.ts';
import type { RunRecord, RunError } from '../../domain/agent/records.ts';
import type { KnownReads, RunOutput } from '../../domain/agent/graphs/runContext.ts';
import type { TraceSpan } from '../../domain/agent/tracing/runSpans.ts';
import type { LogLevel } from '../../shared/projectGlobals.ts';

/** What a worker needs to load the project's graphs (structured-cloneable). */
export interface WorkerSetup {
  graphs: Record<string, GraphSpec>;
  baseDir: string;
  functions: LoadOptions['functions'];
  /** Import the project's modules afresh (workers started after a dev reload). */
  fresh: boolean;
  /** The project's modules compiled by the main thread (source → JavaScript's URL: shared/projectCompile.ts), imported from there; absent: through tsx. */
  modules?: Record<string, string>;
  /** How often a worker says which of its runs progressed (`alive`, the run watchdog's heartbeat); absent or 0: never. */
  heartbeatMs?: number;
  /** The collections whose puts the main thread's store takes as their text and kept fields alone (embedded/textPut.ts); absent: none. */
  textPuts?: TextPutCollections;
}

/** What a worker may call on the main thread: the store's collections, the newest checkpoint of a thread, the memory store, the server's URL (projectGlobals.ts) and the auth service (agentAuthGlobal.ts). */
export type CallTarget = 'collection' | 'write' | 'newestCheckpoint' | 'memory' | 'apiUrl' | 'agentAuth';

/**
 * `known`: what the main thread read of the run's thread just before (workers/firstReads.ts).
 * `next`: start `run` here as soon as the run `after` ends well (or at once, if it has), ahead
 * of its claim, its messages held back (told by `ahead`); `go`: it was claimed and read what it
 * assumed, so its messages may go;
 * `drop`: stop it and discard everything it did (answered by `dropped`). See runsAhead.ts.
 */
export type ToWorker =
  /** `warmUp`: a run of agentplane's warm-up graph (warmRunPath.ts), its store calls marked `warmUp`. */
  | { type: 'run'; run: RunRecord; known?: KnownReads; warmUp?: true }
  | { type: 'abort'; runId: string }
  | { type: 'reply'; id: number; value?: unknown; error?: RunError }
  /** Answers given in one turn of the main thread's loop, in order (replyOutbox.ts). */
  | { type: 'replies'; replies: { type: 'reply'; id: number; value?: unknown; error?: RunError }[] }
  | ({ type: 'next' } & NextOffer)
  /** `next`: the run after it, offered with it (see `next`). */
  | { type: 'go'; runId: string; next?: NextOffer }
  | { type: 'drop'; runId: string }
  /** Asks the worker for its heap's size (answered by `heap`): the pool retires a large idle one (runtime/idle/workerRetirement.ts). */
  | { type: 'heap' };

/** The thread's next run, offered to start ahead once the run `after` ends well. */
export interface NextOffer {
  after: string;
  run: RunRecord;
  /** A flag the main thread sets (to 1) once the run is taken out of the queue: then it is not started. */
  withdrawn: Int32Array;
}

/** `order`: made after the calls before it with the same order, and not after one that failed (orderedCalls.ts). */
/** `run`: the run whose code made the call (none: the worker's own, as while loading the project). */
/** `warmUp`: made by the executor of the warm-up's runs, answered from the warm-up's store, never the server's (runWorkerPool.ts's warmUpExecutor). */
/**
 * `unanswered`: an ordered write the worker does not wait for (a run that defers failures, alone on
 * its thread): no reply is posted, whatever its outcome; the pool fails the run at its end with the
 * first of its thread's ordered calls that failed. Replies the worker would discard were ~4.6 a run
 * (issue 86).
 */
export type StoreCall = {
  type: 'call';
  id: number;
  target: CallTarget;
  method: string;
  args: unknown[];
  order?: string;
  run?: string;
  warmUp: boolean;
  unanswered?: true;
};

export type FromWorker =
  /** `heapBytes`: its heap (committed) once the project is loaded, the size a retirement measures growth from. */
  | { type: 'ready'; heapBytes: number }
  /** The answer to `heap`: the largest its heap (committed) was at a run's end since the last `heap`, or now if larger. */
  | { type: 'heap'; bytes: number }
  | { type: 'loadFailed'; error: RunError }
  /** `text`: the data's JSON text (shared/jsonText.ts), when the worker could write it; else `data`. */
  | { type: 'event'; runId: string; event: string; data?: unknown; text?: string }
  /**
   * `valuesAsLastEvent`: the output's values are the data of the run's last `values` event, not sent twice.
   * `valuesText`: the output's values as the worker wrote their JSON text (its `values` then left empty).
   */
  | { type: 'done'; runId: string; output: RunOutput; valuesAsLastEvent?: boolean; valuesText?: string }
  /**
   * The answer to `next`: the run offered started here ahead of its claim, assuming the first
   * reads whose key is `reads` (firstReads.ts); null: it did not start (nothing of it ran).
   */
  | { type: 'ahead'; runId: string; reads: string | null }
  /** A run started ahead is stopped and nothing of it was posted (the answer to `drop`). */
  | { type: 'dropped'; runId: string }
  /** The runs that did something, or wait on a model or tool call, since the last `alive` (runWorkerPool.ts's watchdog). */
  | { type: 'alive'; runIds: string[] }
  | { type: 'failed'; runId: string; error: RunError & { stack?: string }; trace?: TraceSpan[] }
  | StoreCall
  /** Messages posted one after another, in one message (runWorker.ts). */
  | { type: 'batch'; messages: FromWorker[] }
  /** A line the project's code logged through getLogger(): the server's log writes it. */
  | { type: 'log'; level: LogLevel; message: string; fields: Record<string, unknown> };
