// Reads a thread's state from wherever its graph keeps it: our own per-thread values for
// plain-function graphs, the checkpointer for LangGraph graphs. The graph of a thread is
// the one its latest run executes (recorded on the run; not the thread's metadata, which a
// client may change).
import type { Interrupt, ThreadState } from '../../../generated/agent-server/types.gen.ts';
import type { GraphRegistry } from './graphs.ts';
import { serialiseValues } from './messages.ts';
import type { PlainStateStore } from './plainState.ts';
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
   * The graph of the thread's latest run (run ids grow with time), or null before its first
   * run. When its runs were deleted (deleteRun), the graph its last run recorded on the thread.
   */
  async graphOf(thread: ThreadRecord): Promise<string | null> {
    let latest: RunRecord | undefined;
    for (const run of await this.runs.list({ where: { thread_id: thread.thread_id } })) if (!latest || run.run_id > latest.run_id) latest = run;
    const recorded = thread.metadata.graph_id;
    return latest?.graph_id ?? (typeof recorded === 'string' ? recorded : null);
  }

  async state(thread: ThreadRecord, options: { subgraphs?: boolean } = {}): Promise<ThreadState> {
    const graphId = await this.graphOf(thread);
    const graph = graphId === null ? undefined : await this.graphs.resolve(graphId, { configurable: { thread_id: thread.thread_id } });
    if (graph?.kind === 'langgraph') {
      const snapshot = await graph.graph.getState({ configurable: { thread_id: thread.thread_id } }, { subgraphs: options.subgraphs ?? false });
      return fromSnapshot(thread.thread_id, snapshot);
    }
    const snapshot = await this.plain.read(thread.thread_id);
    if (!snapshot) return EMPTY_STATE;
    const checkpoint = (id: string | null) => (id ? { thread_id: thread.thread_id, checkpoint_ns: '', checkpoint_id: id } : null);
    return {
      values: snapshot.values as ThreadState['values'],
      next: [],
      tasks: [],
      metadata: { source: 'loop', step: snapshot.step, run_id: snapshot.runId, graph_id: graphId },
      created_at: snapshot.createdAt,
      checkpoint: checkpoint(snapshot.checkpointId),
      parent_checkpoint: checkpoint(snapshot.parentCheckpointId),
      interrupts: [],
    };
  }

  /** The thread's current values, or null before its first run. */
  async values(thread: ThreadRecord): Promise<Record<string, unknown> | null> {
    const state = await this.state(thread);
    return state.checkpoint ? (state.values as Record<string, unknown>) : null;
  }
}

function fromSnapshot(threadId: string, snapshot: any): ThreadState {
  const configurable = snapshot?.config?.configurable ?? {};
  if (!configurable.checkpoint_id) return EMPTY_STATE;
  const tasks = (snapshot.tasks ?? []).map((task: any) => ({
    id: task.id,
    name: task.name,
    error: task.error ? String(task.error?.message ?? task.error) : null,
    interrupts: (task.interrupts ?? []).map(toInterrupt),
    ...(task.state && typeof task.state === 'object' && 'values' in task.state ? { state: fromSnapshot(threadId, task.state) as unknown as Record<string, unknown> } : {}),
  }));
  const parent = snapshot.parentConfig?.configurable;
  return {
    values: serialiseValues(snapshot.values ?? {}) as ThreadState['values'],
    next: [...(snapshot.next ?? [])],
    tasks,
    metadata: (serialiseValues(snapshot.metadata ?? null) as Record<string, unknown>) ?? null,
    created_at: snapshot.createdAt ?? null,
    checkpoint: { thread_id: threadId, checkpoint_ns: configurable.checkpoint_ns ?? '', checkpoint_id: configurable.checkpoint_id },
    parent_checkpoint: parent?.checkpoint_id ? { thread_id: threadId, checkpoint_ns: parent.checkpoint_ns ?? '', checkpoint_id: parent.checkpoint_id } : null,
    interrupts: tasks.flatMap((t: { interrupts: Interrupt[] }) => t.interrupts),
  };
}

export function toInterrupt(value: any): Interrupt {
  const out: Interrupt = { value: serialiseValues(value?.value) as Interrupt['value'] };
  if (typeof value?.id === 'string') out.id = value.id;
  return out;
}
