// Executes one run of a graph and publishes its stream events. Plain-function graphs get
// the thread's values and return an update (merged with the `add_messages` rule for
// `messages`, replacement for other keys); LangGraph graphs stream through the checkpointer.
import { Command, type BaseStore } from '@langchain/langgraph';
import type { Interrupt } from '../../../generated/agent-server/types.gen.ts';
import type { WriteOp } from '../../runtime/store/types.ts';
import { LangGraphMemoryStore } from '../memory/langgraphStore.ts';
import type { MemoryStore } from '../memory/memoryStore.ts';
import type { StoreCheckpointer } from './checkpointer.ts';
import type { GraphRegistry, LoadedGraph } from './graphs.ts';
import { addMessages, serialiseValues, toMessageDict, type MessageDict } from './messages.ts';
import type { PlainSnapshot, PlainStateStore } from './plainState.ts';
import type { RunRecord } from './records.ts';
import { toInterrupt } from './threadState.ts';
import { nowIso, uuid7 } from './ids.ts';
import { forkCheckpointId } from './checkpoints.ts';

export interface RunContext {
  run: RunRecord;
  graph: LoadedGraph;
  signal: AbortSignal;
  publish(event: string, data: unknown): void;
  plain: PlainStateStore;
  /** The long-term memory store (`config.store` of LangGraph graphs, `context.store` of plain ones). */
  memory?: BaseStore;
  /** For LangGraph runs restarted after a crash: continue from this run's own checkpoint. */
  resumeFromCheckpoint: boolean;
}

export interface RunOutput {
  values: Record<string, unknown>;
  next: string[];
  interrupts: Record<string, Interrupt[]>;
  /** Writes that commit the new state; applied atomically with the run's final status. */
  ops: WriteOp[];
}

/** Executes a claimed run's graph, publishing its stream events; resolves with the new state. */
export type RunExecutor = (run: RunRecord, signal: AbortSignal, publish: (event: string, data: unknown) => void) => Promise<RunOutput>;

/** Runs each run with the graph recorded on it (never the thread's latest graph). */
export function graphExecutor(deps: { graphs: GraphRegistry; plain: PlainStateStore; checkpointer: StoreCheckpointer; memoryStore?: MemoryStore }): RunExecutor {
  return async (run, signal, publish) => {
    const graph = deps.graphs.get(run.graph_id);
    if (!graph) throw Object.assign(new Error(`Graph '${run.graph_id}' is not configured on this server.`), { name: 'GraphNotFound' });
    // a LangGraph run restarted after a crash continues from the checkpoints it already wrote
    const resumeFromCheckpoint = run.attempt > 1 && (await deps.checkpointer.latestRunId(run.thread_id)) === run.run_id;
    const memory = deps.memoryStore ? new LangGraphMemoryStore(deps.memoryStore, '') : undefined;
    const ctx: RunContext = { run, graph, signal, publish, plain: deps.plain, memory, resumeFromCheckpoint };
    return graph.kind === 'plain' ? runPlainGraph(ctx) : runLangGraph(ctx);
  };
}

export function streamModes(run: RunRecord): Set<string> {
  const mode = run.kwargs.stream_mode;
  return new Set(Array.isArray(mode) ? (mode as string[]) : typeof mode === 'string' ? [mode] : ['values']);
}

export async function runPlainGraph(ctx: RunContext): Promise<RunOutput> {
  if (ctx.graph.kind !== 'plain') throw new Error('not a plain graph');
  const { run, publish } = ctx;
  const modes = streamModes(run);
  // the run continues the thread's head, or forks from the checkpoint it names
  const forkFrom = forkCheckpointId(run.kwargs);
  const base: PlainSnapshot | undefined = await ctx.plain.read(run.thread_id, forkFrom);
  if (forkFrom && !base) throw Object.assign(new Error(`Checkpoint ${forkFrom} not found on thread ${run.thread_id}`), { name: 'CheckpointNotFound' });
  const input = normaliseInput(run.kwargs.input);
  const ops: WriteOp[] = [];
  let parent = base;
  let state: Record<string, unknown> = base?.values ?? { messages: [] };
  // like LangGraph: an input checkpoint (what regenerate forks from), then one per step
  const commit = (source: string, writes: Record<string, unknown>) => {
    const step = parent ? parent.step + 1 : -1;
    const metadata = { source, step, writes, parents: {}, run_id: run.run_id, thread_id: run.thread_id, graph_id: ctx.graph.id, assistant_id: run.assistant_id };
    const written = ctx.plain.commitOps(run.thread_id, parent, state, { checkpointId: uuid7(), createdAt: nowIso(), metadata });
    ops.push(...written.ops);
    parent = written.snapshot;
  };
  if (input) {
    state = applyUpdate(state, input);
    commit('input', { __start__: input });
  }
  if (modes.has('values')) publish('values', state);
  const update = await ctx.graph.fn(state, {
    runId: run.run_id,
    threadId: run.thread_id,
    assistantId: run.assistant_id,
    graphId: ctx.graph.id,
    input,
    config: (run.kwargs.config as Record<string, unknown>) ?? {},
    context: (run.kwargs.context as Record<string, unknown>) ?? {},
    signal: ctx.signal,
    store: ctx.memory,
    emit: (data) => modes.has('custom') && publish('custom', data),
  });
  ctx.signal.throwIfAborted();
  const normalised = normaliseInput(update ?? {}) ?? {};
  const known = new Set((state.messages as MessageDict[]).map((m) => m.id));
  state = applyUpdate(state, normalised);
  if (modes.has('updates')) publish('updates', { [ctx.graph.id]: normalised });
  const produced = ((normalised.messages as MessageDict[] | undefined) ?? []).filter((m) => !known.has(m.id));
  publishMessages(ctx, modes, produced, { langgraph_node: ctx.graph.id });
  if (modes.has('values')) publish('values', state);
  commit('loop', { [ctx.graph.id]: normalised });
  return { values: state, next: [], interrupts: {}, ops };
}

export async function runLangGraph(ctx: RunContext): Promise<RunOutput> {
  if (ctx.graph.kind !== 'langgraph') throw new Error('not a LangGraph graph');
  const { run, publish } = ctx;
  const modes = streamModes(run);
  const kwargs = run.kwargs as Record<string, any>;
  const config = (kwargs.config ?? {}) as Record<string, any>;
  const graphModes = new Set(['values', 'updates', 'custom', 'debug', 'tasks', 'checkpoints'].filter((m) => modes.has(m)));
  if (modes.has('messages') || modes.has('messages-tuple')) graphModes.add('messages');
  const subgraphs = kwargs.stream_subgraphs === true;
  const input = ctx.resumeFromCheckpoint ? null : kwargs.command ? new Command(kwargs.command) : (kwargs.input ?? null);
  const stream = await ctx.graph.graph.stream(input, {
    ...config,
    configurable: {
      ...config.configurable,
      thread_id: run.thread_id,
      run_id: run.run_id,
      assistant_id: run.assistant_id,
      graph_id: ctx.graph.id,
      ...(forkCheckpointId(kwargs) && !ctx.resumeFromCheckpoint ? { checkpoint_id: forkCheckpointId(kwargs) } : {}),
    },
    metadata: { ...config.metadata, ...run.metadata, run_id: run.run_id, thread_id: run.thread_id, graph_id: ctx.graph.id, assistant_id: run.assistant_id },
    context: kwargs.context,
    ...(ctx.memory ? { store: ctx.memory } : {}),
    // every checkpoint is on the store before the stream ends: with "async", LangGraph may
    // still be writing after the run is recorded as finished (and after shutdown)
    durability: kwargs.durability ?? (kwargs.checkpoint_during === false ? 'exit' : 'sync'),
    streamMode: [...graphModes],
    subgraphs,
    signal: ctx.signal,
    ...(kwargs.interrupt_before ? { interruptBefore: kwargs.interrupt_before } : {}),
    ...(kwargs.interrupt_after ? { interruptAfter: kwargs.interrupt_after } : {}),
  });
  for await (const chunk of stream as AsyncIterable<unknown[]>) {
    const [ns, mode, data] = (subgraphs ? chunk : [[], ...chunk]) as unknown as [string[], string, unknown];
    const suffix = ns.length ? `|${ns.join('|')}` : '';
    if (mode === 'messages') {
      const [message, metadata] = data as [unknown, Record<string, unknown>];
      publishMessages(ctx, modes, [toMessageDict(message, 'ai')], metadata, suffix);
    } else publish(`${mode}${suffix}`, serialiseValues(data));
  }
  const snapshot = await ctx.graph.graph.getState({ configurable: { thread_id: run.thread_id } });
  const interrupts: Record<string, Interrupt[]> = {};
  for (const task of snapshot.tasks ?? []) if (task.interrupts?.length) interrupts[task.id] = task.interrupts.map(toInterrupt);
  return { values: serialiseValues(snapshot.values ?? {}) as Record<string, unknown>, next: [...(snapshot.next ?? [])], interrupts, ops: [] };
}

const seenMetadata = new WeakMap<RunContext, Set<string>>();

/** `messages-tuple` → `messages` [message, metadata]; `messages` → metadata + partial/complete. */
function publishMessages(ctx: RunContext, modes: Set<string>, messages: MessageDict[], metadata: Record<string, unknown>, suffix = ''): void {
  const meta = { ...serialiseValues(metadata) as Record<string, unknown>, run_id: ctx.run.run_id };
  for (const message of messages) {
    if (modes.has('messages-tuple')) ctx.publish(`messages${suffix}`, [message, meta]);
    if (modes.has('messages')) {
      let seen = seenMetadata.get(ctx);
      if (!seen) seenMetadata.set(ctx, (seen = new Set()));
      if (!seen.has(message.id)) {
        seen.add(message.id);
        ctx.publish(`messages/metadata${suffix}`, { [message.id]: { metadata: meta } });
      }
      const partial = /Chunk$/.test(String(message.type));
      ctx.publish(`messages/${partial ? 'partial' : 'complete'}${suffix}`, [message]);
    }
  }
}

/** Input messages may be `{role, content}` dicts or strings; they become message dicts with ids. */
export function normaliseInput(input: unknown): Record<string, unknown> | null {
  if (input === null || input === undefined) return null;
  if (typeof input !== 'object' || Array.isArray(input)) return { messages: [input].flat() };
  const { messages, ...rest } = input as Record<string, unknown>;
  if (messages === undefined) return { ...rest };
  return { ...rest, messages: (Array.isArray(messages) ? messages : [messages]).map((m) => toMessageDict(m)) };
}

export function applyUpdate(state: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const next: Record<string, unknown> = { ...state };
  for (const [key, value] of Object.entries(update)) {
    next[key] = key === 'messages' ? addMessages((state.messages as MessageDict[] | undefined) ?? [], value) : value;
  }
  return next;
}
