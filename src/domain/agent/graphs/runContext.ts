// What a graph runner works with (the run, its graph, where to publish, the stores) and
// what it hands back to the run engine. Kept apart so the runners' helpers can name
// them without importing the runners.
import type { BaseStore } from '@langchain/langgraph';
import type { Interrupt } from '../../../../generated/agent-server/types.gen.ts';
import type { WriteOp } from '../../ports/store.ts';
import type { LoadedGraph, RunnableGraph } from './graphs.ts';
import type { StoreCheckpointer, StoredHead } from '../checkpoints/checkpointer.ts';
import type { PlainCheckpointRecord, PlainStateStore } from '../checkpoints/plainState.ts';
import type { RunRecord } from '../records.ts';
import type { RunTracer } from '../tracing/runTracer.ts';
import type { TraceSpan } from '../tracing/runSpans.ts';

export interface RunContext {
  run: RunRecord;
  graph: RunnableGraph;
  signal: AbortSignal;
  publish(event: string, data: unknown): void;
  plain: PlainStateStore;
  /** Where LangGraph graphs keep their state: a plain-function run continues it when it is the thread's newest. */
  checkpointer: StoreCheckpointer;
  /** The long-term memory store (`config.store` of LangGraph graphs, `context.store` of plain ones). */
  memory?: BaseStore;
  /** For LangGraph runs restarted after a crash: continue from this run's own checkpoint. */
  resumeFromCheckpoint: boolean;
  /** Turns the graph's callbacks into the run's trace spans. */
  tracer?: RunTracer;
  /** Publish `values` as their JSON text (JsonText): a run worker posts events as text. */
  valuesAsText?: boolean;
  /** What each run's metadata says of the server (`langgraph_version`, `langgraph_plan`, `langgraph_host`). */
  hostMetadata: Readonly<Record<string, string>>;
}

export interface RunOutput {
  values: Record<string, unknown>;
  next: string[];
  interrupts: Record<string, Interrupt[]>;
  /** Writes that commit the new state; applied atomically with the run's final status. */
  ops: WriteOp[];
  /** The run's trace (tracing/runTracer.ts), kept on the run's record. */
  trace?: TraceSpan[];
}

/** The run stopped for input (an interrupt, or `interrupt_before`/`after`): its thread waits for a run that resumes it. */
export const waitsForInput = (output: RunOutput): boolean => output.next.length > 0;

/**
 * Executes a claimed run's graph, publishing its stream events; resolves with the new state.
 * `started` is called when the graph begins (after any wait for a worker): the run's time
 * limit counts from then.
 */
export type RunExecutor = (run: RunRecord, signal: AbortSignal, publish: (event: string, data: unknown) => void, started?: () => void) => Promise<RunOutput>;

/**
 * What was read of a run's thread just before the run was handed over (a run worker is sent
 * it with the run: workers/firstReads.ts), so that its first reads are not round trips.
 * Undefined: not read; null: read, and there is none.
 */
export interface KnownReads {
  /** The plain-state head checkpoint's record. */
  plainHead?: PlainCheckpointRecord | null;
  /** The newest root LangGraph checkpoint with its pending writes. */
  newestCheckpoint?: StoredHead | null;
  /**
   * The newest root checkpoint is the one the thread's last run ended on in the run worker the
   * run goes to, and nothing wrote the thread's checkpoints since: that worker takes it from its
   * own memory (its checkpointer's end state, endedHead) rather than being sent it.
   */
  ownCheckpoint?: true;
}

/** The kinds of graph whose first reads can be read ahead (see KnownReads); undefined: none are. */
export type FirstReadsKind = 'plain' | 'langgraph' | undefined;

/** Which first reads a run of this kind of graph makes: a plain function's head, or LangGraph's newest checkpoint (a factory's graph is LangGraph's). */
export function firstReadsKind(kind: LoadedGraph['kind'] | undefined): FirstReadsKind {
  return kind === 'plain' ? 'plain' : kind === 'langgraph' || kind === 'factory' ? 'langgraph' : undefined;
}

/** A RunExecutor that can be told what was read of the thread already (see KnownReads). */
export type RunExecutorWithReads = (
  run: RunRecord,
  signal: AbortSignal,
  publish: (event: string, data: unknown) => void,
  started?: () => void,
  known?: KnownReads,
) => Promise<RunOutput>;
