// Reads a thread's state and history from wherever its graph keeps them: our own checkpoint
// chain for plain-function graphs (plainState.ts), the checkpointer for LangGraph graphs. The graph of a thread is
// the one its latest run executes (recorded on the run; not the thread's metadata, which a
// client may change).
import type { Checkpoint, Interrupt, ThreadState } from '../../../generated/agent-server/types.gen.ts';
import type { GraphRegistry, LoadedGraph } from './graphs.ts';
import { serialiseValues } from './messages.ts';
import type { PlainSnapshot, PlainStateStore } from './plainState.ts';
import type { Collection } from '../../runtime/store/types.ts';
import type { RunRecord, ThreadRecord } from './records.ts';

export const EMPTY_STATE: ThreadState = {
  values: {},
  next: [],
  tasks: [],
  metadata: null,
  created_at: null,
  checkpoint: null,
  parent_checkpoint: null,
  interrupts: [],
};

export class ThreadStateReader {
  constructor(
    private readonly graphs: GraphRegistry,
    private readonly plain: PlainStateStore,
    private readonly runs: Collection<RunRecord>,
  ) {}

  /**
   * The graph of the thread's latest run (run ids grow with time); before its first run (or
   * when its runs were deleted) the graph recorded in its metadata (`graph_id`, set by the
   * SDKs' `graphId` and by runs, kept by copies), or null.
   */
  async graphOf(thread: ThreadRecord): Promise<string | null> {
    let latest: RunRecord | undefined;
    for (const run of await this.runs.list({ where: { thread_id: thread.thread_id } })) if (!latest || run.run_id > latest.run_id) latest = run;
    const recorded = thread.metadata.graph_id;
    return latest?.graph_id ?? (typeof recorded === 'string' ? recorded : null);
  }

  async graph(thread: ThreadRecord): Promise<LoadedGraph | undefined> {
    const graphId = await this.graphOf(thread);
    if (graphId === null) return undefined;
    // a factory is called with the thread's config (its runs' merged configurable), as
    // upstream does for state reads and updates: the graph it makes reads this thread's state
    const config = thread.config ?? {};
    return this.graphs.resolve(graphId, { ...config, configurable: { ...(config.configurable as Record<string, unknown> | undefined), thread_id: thread.thread_id } });
  }

  /** The latest state, or the state at `checkpointId`; null when that checkpoint does not exist. */
  async state(thread: ThreadRecord, options: { subgraphs?: boolean; checkpointId?: string; checkpointNs?: string } = {}): Promise<ThreadState | null> {
    const graph = await this.graph(thread);
    if (graph?.kind === 'langgraph') {
      const configurable = { thread_id: thread.thread_id, ...(options.checkpointNs ? { checkpoint_ns: options.checkpointNs } : {}), ...(options.checkpointId ? { checkpoint_id: options.checkpointId } : {}) };
      const snapshot = await graph.graph.getState({ configurable }, { subgraphs: options.subgraphs ?? false });
      // an unknown checkpoint id comes back as a snapshot of nothing, carrying the id asked for
      if (options.checkpointId && snapshot?.metadata === undefined) return null;
      return fromSnapshot(thread.thread_id, snapshot);
    }
    const snapshot = await this.plain.read(thread.thread_id, options.checkpointId);
    if (!snapshot) return options.checkpointId ? null : EMPTY_STATE;
    return fromPlain(thread.thread_id, snapshot);
  }

  /** The latest state (`GET /threads/{id}/state`). */
  async latest(thread: ThreadRecord, options: { subgraphs?: boolean } = {}): Promise<ThreadState> {
    return (await this.state(thread, options)) ?? EMPTY_STATE;
  }

  /** Checkpoints newest first, as states (`GET/POST /threads/{id}/history`). */
  async history(thread: ThreadRecord, options: { limit: number; before?: string; metadata?: Record<string, unknown>; checkpointNs?: string; checkpointId?: string }): Promise<ThreadState[]> {
    const graph = await this.graph(thread);
    if (graph?.kind === 'langgraph') {
      const config = { configurable: { thread_id: thread.thread_id, checkpoint_ns: options.checkpointNs ?? '', ...(options.checkpointId ? { checkpoint_id: options.checkpointId } : {}) } };
      const listOptions = {
        limit: options.limit,
        ...(options.before ? { before: { configurable: { checkpoint_id: options.before } } } : {}),
        ...(options.metadata ? { filter: options.metadata } : {}),
      };
      const states: ThreadState[] = [];
      for await (const snapshot of graph.graph.getStateHistory(config, listOptions)) states.push(fromSnapshot(thread.thread_id, snapshot));
      return states;
    }
    if (options.checkpointNs) return []; // plain-function graphs have no subgraphs
    const snapshots = options.checkpointId
      ? [await this.plain.read(thread.thread_id, options.checkpointId)].filter((s) => s !== undefined)
      : await this.plain.history(thread.thread_id, options);
    return snapshots.map((s) => fromPlain(thread.thread_id, s));
  }

  /** The thread's current values, or null before its first run. */
  async values(thread: ThreadRecord): Promise<Record<string, unknown> | null> {
    const state = await this.state(thread);
    return state?.checkpoint ? (state.values as Record<string, unknown>) : null;
  }
}

function fromPlain(threadId: string, snapshot: PlainSnapshot): ThreadState {
  const checkpoint = (id: string | null) => (id ? { thread_id: threadId, checkpoint_ns: '', checkpoint_id: id, checkpoint_map: null } : null);
  return {
    values: snapshot.values as ThreadState['values'],
    // an input checkpoint holds the input applied; the graph's function runs next
    next: snapshot.metadata.source === 'input' && typeof snapshot.metadata.graph_id === 'string' ? [snapshot.metadata.graph_id] : [],
    tasks: [],
    metadata: snapshot.metadata,
    created_at: snapshot.createdAt,
    checkpoint: checkpoint(snapshot.checkpointId),
    parent_checkpoint: checkpoint(snapshot.parentCheckpointId),
    interrupts: [],
  };
}

export function fromSnapshot(threadId: string, snapshot: any): ThreadState {
  const configurable = snapshot?.config?.configurable ?? {};
  if (!configurable.checkpoint_id) return EMPTY_STATE;
  // a task's `state` is the subgraph's state when it was asked for (`subgraphs`), else the
  // config that points at it: clients pass that `checkpoint` back to read or edit the subgraph
  const tasks = (snapshot.tasks ?? []).map((task: any) => {
    const state = task.state && typeof task.state === 'object' ? task.state : null;
    const isSnapshot = !!state && 'values' in state && 'next' in state;
    return {
      id: task.id,
      name: task.name,
      error: task.error ? String(task.error?.message ?? task.error) : null,
      interrupts: (task.interrupts ?? []).map(toInterrupt),
      path: serialiseValues(task.path ?? []) as unknown[],
      checkpoint: !isSnapshot && state?.configurable ? (serialiseValues(state.configurable) as Record<string, unknown>) : null,
      state: isSnapshot ? (fromSnapshot(threadId, state) as unknown as Record<string, unknown>) : null,
      result: serialiseValues(task.result ?? null),
    };
  });
  const parent = snapshot.parentConfig?.configurable;
  return {
    values: serialiseValues(snapshot.values ?? {}) as ThreadState['values'],
    next: [...(snapshot.next ?? [])],
    tasks,
    metadata: (serialiseValues(snapshot.metadata ?? null) as Record<string, unknown>) ?? null,
    created_at: snapshot.createdAt ?? null,
    checkpoint: checkpointOf(threadId, configurable),
    parent_checkpoint: parent?.checkpoint_id ? checkpointOf(threadId, parent) : null,
    interrupts: tasks.flatMap((t: { interrupts: Interrupt[] }) => t.interrupts),
  };
}

/** A checkpoint pointer as upstream writes it (`checkpoint_map` names the parents' checkpoints of a subgraph's). */
function checkpointOf(threadId: string, configurable: Record<string, any>): Checkpoint {
  return { thread_id: threadId, checkpoint_ns: configurable.checkpoint_ns ?? '', checkpoint_id: configurable.checkpoint_id, checkpoint_map: configurable.checkpoint_map ?? null };
}

export function toInterrupt(value: any): Interrupt {
  const out: Interrupt = { value: serialiseValues(value?.value) as Interrupt['value'] };
  if (typeof value?.id === 'string') out.id = value.id;
  return out;
}
