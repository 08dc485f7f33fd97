// Reads a thread's state and history from wherever its graph keeps them: our own checkpoint
// chain for plain-function graphs (plainState.ts), the checkpointer for LangGraph graphs. The graph of a thread is
// the one its latest run executes (recorded on the run; not the thread's metadata, which a
// client may change).
import type { Checkpoint, Interrupt, ThreadState } from '../../../../generated/agent-server/types.gen.ts';
import type { GraphRegistry, LoadedGraph } from '../graphs/graphs.ts';
import { serialiseValues } from '../messages/messages.ts';
import type { PlainSnapshot, PlainStateStore } from '../checkpoints/plainState.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { RunRecord, ThreadRecord } from '../records.ts';

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
    private readonly runs: Pick<RunStore, 'onThread'>,
  ) {}

  /**
   * The graph of the thread's latest run (run ids grow with time); before its first run (or
   * when its runs were deleted) the graph recorded in its metadata (`graph_id`, set by the
   * SDKs' `graphId` and by runs, kept by copies), or null.
   */
  async graphOf(thread: ThreadRecord): Promise<string | null> {
    let latest: RunRecord | undefined;
    for (const run of await this.runs.onThread(thread.thread_id)) if (!latest || run.run_id > latest.run_id) latest = run;
    const recorded = thread.metadata.graph_id;
    return latest?.graph_id ?? (typeof recorded === 'string' ? recorded : null);
  }

  async graph(thread: ThreadRecord): Promise<LoadedGraph | undefined> {
    const graphId = await this.graphOf(thread);
    if (graphId === null) return undefined;
    // a factory is called with the thread's config (its runs' merged configurable), as
    // upstream does for state reads and updates: the graph it makes reads this thread's state
    const config = thread.config ?? {};
    return this.graphs.resolve(graphId, {
      ...config,
      configurable: { ...(config.configurable as Record<string, unknown> | undefined), thread_id: thread.thread_id },
    });
  }

  /**
   * The graph of the thread's latest run of the other kind than `graph` (plain-function
   * graphs keep their state in their chain, LangGraph graphs in the checkpointer): one
   * thread, any graph, so a thread's history and states may be in both places.
   */
  private async otherKindOf(thread: ThreadRecord, graph: LoadedGraph | undefined): Promise<LoadedGraph | undefined> {
    const wantLangGraph = graph?.kind !== 'langgraph';
    let latest: RunRecord | undefined;
    for (const run of await this.runs.onThread(thread.thread_id)) {
      const kind = this.graphs.kind(run.graph_id);
      if (kind === undefined || (kind !== 'plain') !== wantLangGraph) continue;
      if (!latest || run.run_id > latest.run_id) latest = run;
    }
    if (!latest) return undefined;
    const config = thread.config ?? {};
    return this.graphs.resolve(latest.graph_id, {
      ...config,
      configurable: { ...(config.configurable as Record<string, unknown> | undefined), thread_id: thread.thread_id },
    });
  }

  /** The LangGraph graph that reads the thread's checkpointer state: the latest graph, else the latest LangGraph one. */
  private async langGraphOf(thread: ThreadRecord, latest: LoadedGraph | undefined): Promise<Extract<LoadedGraph, { kind: 'langgraph' }> | undefined> {
    const graph = latest?.kind === 'langgraph' ? latest : await this.otherKindOf(thread, latest);
    return graph?.kind === 'langgraph' ? graph : undefined;
  }

  /** The latest state, or the state at `checkpointId` (of either chain); null when that checkpoint does not exist. */
  async state(thread: ThreadRecord, options: { subgraphs?: boolean; checkpointId?: string; checkpointNs?: string } = {}): Promise<ThreadState | null> {
    const latest = await this.graph(thread);
    if (options.checkpointId || options.checkpointNs) {
      // a checkpoint of an earlier run may be in the chain of the other kind of graph
      const plain = options.checkpointNs ? undefined : await this.plain.read(thread.thread_id, options.checkpointId);
      if (plain) return fromPlain(thread.thread_id, plain);
      const graph = await this.langGraphOf(thread, latest);
      if (graph) return langGraphState(graph, thread.thread_id, options);
    }
    if (latest?.kind === 'langgraph') return langGraphState(latest, thread.thread_id, options);
    const snapshot = await this.plain.read(thread.thread_id, options.checkpointId);
    if (!snapshot) return options.checkpointId ? null : EMPTY_STATE;
    return fromPlain(thread.thread_id, snapshot);
  }

  /**
   * The latest state (`GET /threads/{id}/state`); never fails. LangGraph computes it by
   * applying the pending writes of the latest step, which the graph's reducers may refuse
   * (a message of an unknown role, a removal of a message that is not there: the run that
   * wrote them failed on the same refusal). The state is then the latest checkpoint's as
   * saved, the tasks whose writes were refused carrying the reducer's error, as getState
   * shows a failed step; when even that cannot be read, the stored values (`state_error`).
   */
  async latest(thread: ThreadRecord, options: { subgraphs?: boolean } = {}): Promise<ThreadState> {
    try {
      return (await this.state(thread, options)) ?? EMPTY_STATE;
    } catch (refused) {
      const reason = reasonOf(refused);
      try {
        const saved = await this.latestAsSaved(thread, options);
        if (saved) return withRefusedWrites(saved, reason);
      } catch (unreadable) {
        return storedState(thread, reasonOf(unreadable));
      }
      return storedState(thread, reason);
    }
  }

  /** The latest checkpoint of the thread's LangGraph chain without its pending writes applied (as history shows it), or null. */
  private async latestAsSaved(thread: ThreadRecord, options: { subgraphs?: boolean }): Promise<ThreadState | null> {
    const graph = await this.langGraphOf(thread, await this.graph(thread));
    if (!graph) return null;
    const [newest] = await take(langGraphHistory(graph, thread.thread_id, { limit: 1 }), 1);
    const checkpointId = newest?.checkpoint?.checkpoint_id;
    // read again by its id for `subgraphs`: a state read at a checkpoint applies no pending writes
    return checkpointId ? langGraphState(graph, thread.thread_id, { ...options, checkpointId }) : null;
  }

  /** The values a thread's record shows: those stored at its last change (computed for a record stored before they were). */
  async storedValues(thread: ThreadRecord): Promise<Record<string, unknown> | null> {
    return thread.values !== undefined ? thread.values : this.currentValues(thread);
  }

  /**
   * The thread's current values, to store on its record when its state has changed; null
   * before its first run. Never fails: when no checkpoint can be read (see latest), or none is
   * found any more (its graph is no longer served), the values stored stay.
   */
  async currentValues(thread: ThreadRecord): Promise<Record<string, unknown> | null> {
    const state = await this.latest(thread);
    return state.checkpoint ? (state.values as Record<string, unknown>) : (thread.values ?? null);
  }

  /**
   * Checkpoints newest first, as states (`GET/POST /threads/{id}/history`). A thread whose
   * runs used both kinds of graph has one history: both chains merged by creation time, the
   * filters, `before` and `limit` applied to the merged list.
   */
  async history(thread: ThreadRecord, options: HistoryOptions): Promise<ThreadState[]> {
    const latest = await this.graph(thread);
    if (options.checkpointNs) {
      // only LangGraph graphs have subgraphs
      const graph = await this.langGraphOf(thread, latest);
      return graph ? take(langGraphHistory(graph, thread.thread_id, options), options.limit) : [];
    }
    if (options.checkpointId) {
      const state = await this.state(thread, { checkpointId: options.checkpointId });
      return state && matches(state.metadata, options.metadata) ? [state] : [];
    }
    const langGraph = await this.langGraphOf(thread, latest);
    const plainChain = async (opts: HistoryOptions & { createdBefore?: string }) =>
      (await this.plain.history(thread.thread_id, opts)).map((s) => fromPlain(thread.thread_id, s));
    if (!langGraph) return plainChain(options);
    if (!(await this.plain.read(thread.thread_id))) return take(langGraphHistory(langGraph, thread.thread_id, options), options.limit);
    return mergedHistory(
      { plain: plainChain, langGraph: (opts, createdBefore) => take(langGraphHistory(langGraph, thread.thread_id, opts, createdBefore), opts.limit) },
      options,
      async (id) => {
        const plain = await this.plain.read(thread.thread_id, id);
        if (plain) return { createdAt: plain.createdAt, plain: true };
        const state = await langGraphState(langGraph, thread.thread_id, { checkpointId: id });
        return state?.created_at ? { createdAt: state.created_at, plain: false } : null;
      },
    );
  }
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A state read without its pending writes: the tasks that wrote them (they have a result) failed on `reason`. */
function withRefusedWrites(state: ThreadState, reason: string): ThreadState {
  return { ...state, tasks: state.tasks.map((task) => (task.result != null && !task.error ? { ...task, error: reason } : task)) };
}

/** What the latest state answers when no checkpoint can be read: the record's stored values, and why. */
function storedState(thread: ThreadRecord, reason: string): ThreadState {
  return { ...EMPTY_STATE, values: (thread.values ?? {}) as ThreadState['values'], state_error: reason };
}

interface HistoryOptions {
  limit: number;
  before?: string;
  metadata?: Record<string, unknown>;
  checkpointNs?: string;
  checkpointId?: string;
}

type LangGraph = Extract<LoadedGraph, { kind: 'langgraph' }>;

async function langGraphState(
  graph: LangGraph,
  threadId: string,
  options: { subgraphs?: boolean; checkpointId?: string; checkpointNs?: string },
): Promise<ThreadState | null> {
  const configurable = {
    thread_id: threadId,
    ...(options.checkpointNs ? { checkpoint_ns: options.checkpointNs } : {}),
    ...(options.checkpointId ? { checkpoint_id: options.checkpointId } : {}),
  };
  const snapshot = await graph.graph.getState({ configurable }, { subgraphs: options.subgraphs ?? false });
  // an unknown checkpoint id comes back as a snapshot of nothing, carrying the id asked for
  if (options.checkpointId && snapshot?.metadata === undefined) return null;
  return fromSnapshot(threadId, snapshot);
}

/** The checkpointer's states newest first; with `createdBefore`, only those created earlier. */
async function* langGraphHistory(graph: LangGraph, threadId: string, options: HistoryOptions, createdBefore?: string): AsyncGenerator<ThreadState> {
  const config = {
    configurable: { thread_id: threadId, checkpoint_ns: options.checkpointNs ?? '', ...(options.checkpointId ? { checkpoint_id: options.checkpointId } : {}) },
  };
  const listOptions = {
    // counted here when some are skipped by creation time
    ...(createdBefore ? {} : { limit: options.limit }),
    ...(options.before ? { before: { configurable: { checkpoint_id: options.before } } } : {}),
    ...(options.metadata ? { filter: options.metadata } : {}),
  };
  let before = listOptions.before;
  for (;;) {
    try {
      for await (const snapshot of graph.graph.getStateHistory(config, { ...listOptions, ...(before ? { before } : {}) })) {
        const state = fromSnapshot(threadId, snapshot);
        before = { configurable: { checkpoint_id: state.checkpoint!.checkpoint_id } };
        if (!createdBefore || olderThan(state, createdBefore)) yield state;
      }
      return;
    } catch (refused) {
      // a checkpoint whose input writes the reducers refuse (see latest); subgraphs take no input
      if (options.checkpointNs) throw refused;
      const saved = await asSavedAfter(graph, config.configurable, { ...listOptions, ...(before ? { before } : {}) });
      if (!saved) throw refused;
      before = { configurable: { checkpoint_id: saved.checkpoint!.checkpoint_id } };
      if (!createdBefore || olderThan(saved, createdBefore)) yield { ...saved, state_error: reasonOf(refused) };
    }
  }
}

/** LangGraph's id of the writes a run's input or command made before any task ran. */
const INPUT_WRITES_TASK_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The next checkpoint of the list as saved: without the writes of its input, which LangGraph
 * applies to show any checkpoint, and which its reducers refused. Read through a checkpointer
 * that leaves them out, passed as LangGraph passes one to a subgraph.
 */
async function asSavedAfter(graph: LangGraph, configurable: Record<string, unknown>, listOptions: Record<string, unknown>): Promise<ThreadState | null> {
  const checkpointer = (graph.graph as any).checkpointer;
  if (!checkpointer || typeof checkpointer.list !== 'function') return null;
  let tuple: any;
  for await (const found of checkpointer.list({ configurable }, { ...listOptions, limit: 1 })) tuple = found;
  if (!tuple) return null;
  const withoutInput = {
    getTuple: async () => ({ ...tuple, pendingWrites: (tuple.pendingWrites ?? []).filter(([taskId]: [string]) => taskId !== INPUT_WRITES_TASK_ID) }),
  };
  const at = { ...configurable, checkpoint_id: tuple.config.configurable.checkpoint_id, __pregel_checkpointer: withoutInput };
  return fromSnapshot(configurable.thread_id as string, await graph.graph.getState({ configurable: at }));
}

async function take(states: AsyncIterable<ThreadState>, limit: number): Promise<ThreadState[]> {
  const out: ThreadState[] = [];
  if (limit <= 0) return out;
  for await (const state of states) {
    out.push(state);
    if (out.length >= limit) break;
  }
  return out;
}

const olderThan = (state: ThreadState, createdAt: string) => Date.parse(state.created_at ?? '') < Date.parse(createdAt);

const matches = (metadata: unknown, filter: Record<string, unknown> | undefined) =>
  !filter || Object.entries(filter).every(([k, v]) => JSON.stringify((metadata as Record<string, unknown> | null)?.[k]) === JSON.stringify(v));

interface Chains {
  plain(options: HistoryOptions & { createdBefore?: string }): Promise<ThreadState[]>;
  langGraph(options: HistoryOptions, createdBefore?: string): Promise<ThreadState[]>;
}

/**
 * Both chains' checkpoints as one history, newest first by creation time. `before` names a
 * checkpoint of either chain: its own chain pages by id as the checkpointers do, the other
 * chain by its creation time. Where the older neighbour of a checkpoint in the merged order
 * is of the other chain, its `parent_checkpoint` points at that neighbour: a run continued
 * the state the other kind of graph left (sharedThreadState.ts), so clients that rebuild
 * the thread's sequence from parents (useStream's branches) see every run in order.
 */
async function mergedHistory(
  chains: Chains,
  options: HistoryOptions,
  locate: (checkpointId: string) => Promise<{ createdAt: string; plain: boolean } | null>,
): Promise<ThreadState[]> {
  // one more than asked for, to know the older neighbour of the page's last checkpoint
  const window = { ...options, limit: options.limit + 1 };
  let plain: ThreadState[];
  let langGraph: ThreadState[];
  const cutoff = options.before ? await locate(options.before) : null;
  if (cutoff) {
    const { before: _, ...others } = window;
    plain = await chains.plain(cutoff.plain ? window : { ...others, createdBefore: cutoff.createdAt });
    langGraph = cutoff.plain ? await chains.langGraph(others, cutoff.createdAt) : await chains.langGraph(window);
  } else {
    [plain, langGraph] = [await chains.plain(window), await chains.langGraph(window)];
  }
  const chainOf = new Map<ThreadState, ThreadState[]>([...plain.map((s) => [s, plain] as const), ...langGraph.map((s) => [s, langGraph] as const)]);
  const merged = [...plain, ...langGraph].sort((a, b) => Date.parse(b.created_at ?? '') - Date.parse(a.created_at ?? '') || chainRank(a, b, chainOf));
  const page = merged.slice(0, options.limit);
  return page.map((state, i) => {
    const older = merged[i + 1];
    if (!older || chainOf.get(older) === chainOf.get(state)) return state;
    // a fork (its parent is not its chain's previous checkpoint) keeps its own parent
    const chain = chainOf.get(state)!;
    const previousOfChain = chain[chain.indexOf(state) + 1];
    const continued = state.parent_checkpoint === null || state.parent_checkpoint.checkpoint_id === previousOfChain?.checkpoint?.checkpoint_id;
    return continued ? { ...state, parent_checkpoint: older.checkpoint } : state;
  });
}

/** Keeps each chain's own order among checkpoints created in the same millisecond. */
function chainRank(a: ThreadState, b: ThreadState, chainOf: Map<ThreadState, ThreadState[]>): number {
  const chainA = chainOf.get(a)!;
  return chainA === chainOf.get(b) ? chainA.indexOf(a) - chainA.indexOf(b) : 0;
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
      state: isSnapshot ? (subgraphState(threadId, state) as Record<string, unknown>) : null,
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

/**
 * A subgraph's state inside its task, as upstream writes it: a thread state without
 * `interrupts` (they are its tasks'; only the top level of a state lists them all).
 */
function subgraphState(threadId: string, snapshot: unknown): Omit<ThreadState, 'interrupts'> {
  const { interrupts: _, ...state } = fromSnapshot(threadId, snapshot);
  return state;
}

/** A checkpoint pointer as upstream writes it (`checkpoint_map` names the parents' checkpoints of a subgraph's). */
function checkpointOf(threadId: string, configurable: Record<string, any>): Checkpoint {
  return {
    thread_id: threadId,
    checkpoint_ns: configurable.checkpoint_ns ?? '',
    checkpoint_id: configurable.checkpoint_id,
    checkpoint_map: configurable.checkpoint_map ?? null,
  };
}

export function toInterrupt(value: any): Interrupt {
  const out: Interrupt = { value: serialiseValues(value?.value) as Interrupt['value'] };
  if (typeof value?.id === 'string') out.id = value.id;
  return out;
}
