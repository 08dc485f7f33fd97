// Executes one run of a graph and publishes its stream events. Plain-function graphs get
// the thread's values and return an update (merged with the `add_messages` rule for
// `messages`, replacement for other keys); LangGraph graphs stream through the checkpointer.
import { STREAM_EVENTS_V3_MODES } from '@langchain/langgraph/stream';
import type { Interrupt } from '../../../../generated/agent-server/types.gen.ts';
import type { MemoryAccess } from '../../memory/langgraphStore.ts';
import type { RunnableConfig } from '@langchain/core/runnables';
import { withRunMetadata, type StoreCheckpointer } from '../checkpoints/checkpointer.ts';
import { ReturnedGraphError, asCompiledGraph, type GraphRegistry } from './graphs.ts';
import { addMessages, serialiseValues, toMessageDict, type MessageDict } from '../messages/messages.ts';
import { PlainSteps } from './plainSteps.ts';
import { RunStream } from './runStream.ts';
import { hasLangGraphCheckpoint, langGraphHead, langGraphRunInput, otherKindForkError, plainRunBase } from '../threads/sharedThreadState.ts';
import type { PlainSnapshot, PlainStateStore } from '../checkpoints/plainState.ts';
import { ownerOf, type RunRecord } from '../records.ts';
import { toInterrupt } from '../threads/threadState.ts';
import { nowIso } from '../../clock.ts';
import type { WriteOp } from '../../ports/store.ts';
import { forkCheckpointId } from '../checkpoints/checkpoints.ts';
import { uuid7 } from '../ids.ts';
import { projectApiUrl } from '../../../shared/projectGlobals.ts';
import type { RunContext, RunExecutorWithReads, RunOutput } from './runContext.ts';
import { withTrace } from '../tracing/failedRunTrace.ts';
import { isProtocolRun, PlainProtocolEvents } from '../protocol/plainRuns.ts';
import { RunProtocolSource, type GraphProtocolEvent } from '../protocol/runProtocolSource.ts';
import type { RunTracer } from '../tracing/runTracer.ts';
import { OWN_LANGGRAPH_RELEASE, streamSupport } from '../../../shared/langGraphRelease.ts';
import { assignOwn } from '../../../shared/ownCopy.ts';

export type { RunContext, RunExecutor, RunOutput } from './runContext.ts';

// agentplane's LangGraph and the memory store over it (a BaseStore), imported with the first
// run rather than at start, once: an import() per run resolves the module again each time
let langGraphModule: Promise<typeof import('@langchain/langgraph')> | undefined;
const langGraph = () => (langGraphModule ??= import('@langchain/langgraph'));
let memoryStoreLoaded: Promise<typeof import('../../memory/langgraphStore.ts')> | undefined;
const memoryStoreModule = () => (memoryStoreLoaded ??= import('../../memory/langgraphStore.ts'));
// the run tracer and the callback manager's copy are LangChain callback classes: LangChain's
// callbacks and langsmith (~160 modules, ~0.25 CPU-s) load with the first run, not with the
// server (nor with every test process that imports it and runs no graph); so does the stream
// every LangGraph run reads its generator through (generatorStream.ts)
let tracingLoaded:
  | Promise<
      [
        typeof import('../tracing/runTracer.ts'),
        typeof import('../tracing/callbackManagerCopy.ts'),
        typeof import('../tracing/lazyRootRunTree.ts'),
        typeof import('./generatorStream.ts'),
      ]
    >
  | undefined;
const tracingModules = () =>
  (tracingLoaded ??= Promise.all([
    import('../tracing/runTracer.ts'),
    import('../tracing/callbackManagerCopy.ts'),
    import('../tracing/lazyRootRunTree.ts'),
    import('./generatorStream.ts'),
  ]));
/** Loads what every run needs before its first (a run worker, which exists to run graphs, does so before it is ready). */
export const loadRunModules = async (): Promise<void> => {
  // each first import() here resolves through the module hooks (tsx's, on their own thread):
  // made by the first run, they were ~0.03 s of its time to its first token (issue 89)
  await Promise.all([tracingModules(), langGraph(), memoryStoreModule()]);
  // and makes the run spans' provider: its OpenTelemetry SDK, required when first used, was a
  // first run's largest cost before its first token after LangGraph's (~0.05 s of a core, issue 89)
  (await import('../tracing/runSpans.ts')).runSpans();
};
let olderLangGraphLoaded: Promise<typeof import('./olderLangGraph.ts')> | undefined;
const olderLangGraphModule = () => (olderLangGraphLoaded ??= import('./olderLangGraph.ts'));

/** Runs each run with the graph recorded on it (never the thread's latest graph). */
export function graphExecutor(deps: {
  graphs: GraphRegistry;
  plain: PlainStateStore;
  checkpointer: StoreCheckpointer;
  memoryStore?: MemoryAccess;
  /** Publish `values` as their JSON text (RunContext.valuesAsText). */
  valuesAsText?: boolean;
  /** The LangGraph release the project's graphs run on (each run's metadata names it); agentplane's own when not given. */
  langgraphVersion?: string;
  /** Told of each LangGraph run's progress while it executes (the run watchdog); returns what ends the watch. */
  watch?: (runId: string, progressedSince: (since: number) => boolean) => () => void;
}): RunExecutorWithReads {
  const hostMetadata = runHostMetadata(deps.langgraphVersion ?? OWN_LANGGRAPH_RELEASE);
  return async (run, signal, publish, started, known) => {
    started?.();
    const [{ RunTracer }, { useLinearCallbackCopy }, { useLazyRootRunTree }, { useGeneratorStream }] = await tracingModules();
    // the run tracer is a callback handler: LangChain then copies a callback manager per runnable
    useLinearCallbackCopy();
    // and LangChain makes a run tree around each runnable that next to nothing reads
    useLazyRootRunTree();
    // and every LangGraph run streams through a stream of a generator that makes an error at its end
    useGeneratorStream();
    // the run holds its thread: what it reads and writes of the thread's checkpoints is known to the checkpointer
    // with "async" or "exit" durability LangGraph learns of a failed checkpoint write only when
    // the run ends: the hold keeps it for then (settled) rather than let it go unhandled
    const hold = deps.checkpointer.hold(run.thread_id, { deferFailures: runDurability(run) !== 'sync', newest: known?.newestCheckpoint });
    if (known?.plainHead !== undefined) deps.plain.knowHead(run.thread_id, known.plainHead);
    let tracer: RunTracer | undefined;
    let unwatch: (() => void) | undefined;
    let succeeded = false;
    try {
      const graph = await deps.graphs.resolve(run.graph_id, (run.kwargs.config as Record<string, unknown> | undefined) ?? {});
      if (!graph) throw Object.assign(new Error(`Graph '${run.graph_id}' is not configured on this server.`), { name: 'GraphNotFound' });
      // a LangGraph run restarted after a crash continues from the checkpoints it already wrote
      const resumeFromCheckpoint = run.attempt > 1 && (await deps.checkpointer.latestRunId(run.thread_id)) === run.run_id;
      // a graph's store is its run's owner's: the partition the owner reads through /store
      // (a BaseStore: LangGraph is imported with the first run, not before)
      const memory = deps.memoryStore ? new (await memoryStoreModule()).LangGraphMemoryStore(deps.memoryStore, ownerOf(run)) : undefined;
      tracer = new RunTracer({ runId: run.run_id, threadId: run.thread_id, graphId: graph.id, assistantId: run.assistant_id });
      const watched = tracer;
      unwatch = deps.watch?.(run.run_id, (since) => watched.progressedSince(since));
      const { plain, checkpointer, valuesAsText } = deps;
      const ctx: RunContext = { run, graph, signal, publish, plain, checkpointer, memory, resumeFromCheckpoint, tracer, valuesAsText, hostMetadata };
      const output = await runEither(ctx, deps.graphs);
      // the run's checkpoints are all on the store before its outcome is recorded (in a run
      // worker the main thread sees to it: it makes them before it takes the run's end)
      await hold.settledOrOrdered();
      succeeded = true;
      return { ...output, trace: tracer.finish() };
    } catch (err) {
      throw tracer ? withTrace(err, tracer.finish(err)) : err;
    } finally {
      unwatch?.();
      hold.release(succeeded);
      if (known?.plainHead !== undefined) deps.plain.forgetHead(run.thread_id);
    }
  };
}

async function runEither(ctx: RunContext, graphs: GraphRegistry): Promise<RunOutput> {
  const { graph, run } = ctx;
  if (graph.kind !== 'plain') return runLangGraph(ctx);
  try {
    return await runPlainGraph(ctx);
  } catch (err) {
    if (!(err instanceof ReturnedGraphError)) throw err;
    // the function was a graph factory: run the graph it makes (and treat it so from now on)
    await graphs.markFactory(graph.id);
    const made = await graphs.resolve(graph.id, (run.kwargs.config as Record<string, unknown> | undefined) ?? {});
    return runLangGraph({ ...ctx, graph: made! });
  }
}

/** What upstream's dev server says of itself in each run's metadata, the LangGraph release its graphs run on included. */
const runHostMetadata = (langgraphVersion: string) =>
  Object.freeze({ langgraph_version: langgraphVersion, langgraph_plan: 'developer', langgraph_host: 'self-hosted' });

/**
 * The run's merged metadata (runConfig.ts) with the keys upstream adds: the metadata of every
 * checkpoint the run writes (with its configurable, see withRunMetadata).
 */
function runMetadata(run: RunRecord, graphId: string, hostMetadata: RunContext['hostMetadata']): Record<string, unknown> {
  const config = (run.kwargs.config ?? {}) as { metadata?: Record<string, unknown> };
  // assigned key by key, not spread: a spread's copy gets a hidden class of its own each time (ownCopy.ts)
  const metadata: Record<string, unknown> = assignOwn({}, config.metadata);
  metadata.run_attempt = run.attempt;
  assignOwn(metadata, hostMetadata);
  // langgraph_api_url: this server's own URL (upstream's LANGGRAPH_API_URL)
  metadata.langgraph_api_url = projectApiUrl();
  metadata.run_id = run.run_id;
  metadata.thread_id = run.thread_id;
  metadata.graph_id = graphId;
  metadata.assistant_id = run.assistant_id;
  return metadata;
}

/**
 * When the run's checkpoints are written: LangGraph's default, as upstream's server runs it,
 * is "async" (a superstep's checkpoint is written while the next one runs; the run's end
 * waits for them all, see graphExecutor).
 */
function runDurability(run: RunRecord): 'sync' | 'async' | 'exit' {
  const kwargs = run.kwargs as { durability?: 'sync' | 'async' | 'exit'; checkpoint_during?: boolean };
  return kwargs.durability ?? (kwargs.checkpoint_during === false ? 'exit' : 'async');
}

export function streamModes(run: RunRecord): Set<string> {
  const mode = run.kwargs.stream_mode;
  return new Set(Array.isArray(mode) ? (mode as string[]) : typeof mode === 'string' ? [mode] : ['values']);
}

export async function runPlainGraph(ctx: RunContext): Promise<RunOutput> {
  if (ctx.graph.kind !== 'plain') throw new Error('not a plain graph');
  const { run } = ctx;
  // a protocol run publishes everything as protocol events (plainRuns.ts), the run stream's
  // and the steps' alike: nothing else may reach its log
  const protocol = isProtocolRun(run);
  const protocolEvents = protocol ? new PlainProtocolEvents(new RunProtocolSource(ctx.publish)) : undefined;
  const publish = protocolEvents?.publish ?? ctx.publish;
  const out = new RunStream(streamModes(run), publish);
  /**
   * Two steps in the order the run streams have always sent them, or for a protocol run in
   * the order LangGraph's protocol stream has them (values before the task's start, the
   * node's update before its result, a checkpoint's envelope before the values it holds).
   */
  const inOrder = (first: () => void, second: () => void) => (protocol ? [second, first] : [first, second]).forEach((step) => step());
  // the run continues the thread's head, or forks from the checkpoint it names
  const forkFrom = forkCheckpointId(run.kwargs);
  const base: PlainSnapshot | undefined = await ctx.plain.read(run.thread_id, forkFrom);
  if (forkFrom && !base && (await hasLangGraphCheckpoint(ctx.checkpointer, run.thread_id, forkFrom)))
    throw otherKindForkError(run.thread_id, forkFrom, 'plain');
  if (forkFrom && !base) throw Object.assign(new Error(`Checkpoint ${forkFrom} not found on thread ${run.thread_id}`), { name: 'CheckpointNotFound' });
  const input = normaliseInput(run.kwargs.input, run.input_message_ids);
  const steps = new PlainSteps({ ...ctx, publish }, out, protocol);
  const ops: WriteOp[] = [];
  let parent = base;
  // one thread, any graph: a LangGraph run's newer state is where this run continues from
  let state: Record<string, unknown> = forkFrom ? base!.values : plainRunBase(base, await langGraphHead(ctx.checkpointer, run.thread_id));
  // like LangGraph: an input checkpoint (what regenerate forks from), then one per step
  const commit = (source: 'input' | 'loop', writes: Record<string, unknown>) => {
    const step = parent ? parent.step + 1 : -1;
    const config = (run.kwargs.config ?? {}) as RunnableConfig;
    const metadata = withRunMetadata(
      { configurable: config.configurable, metadata: runMetadata(run, ctx.graph.id, ctx.hostMetadata) },
      { source, step, writes, parents: {} },
    );
    const written = ctx.plain.commitOps(run.thread_id, parent, state, { checkpointId: uuid7(), createdAt: nowIso(), metadata });
    steps.checkpoint(state, written.snapshot.checkpointId, parent?.checkpointId ?? null, metadata);
    ops.push(...written.ops);
    parent = written.snapshot;
  };
  if (input) {
    state = applyUpdate(state, input);
    commit('input', { __start__: input });
  }
  inOrder(
    () => steps.start(run.kwargs.input ?? null, state),
    // not the state the run ends on: as text, no copy (a protocol run's events are taken apart as objects)
    () => out.chunk([], 'values', state, !protocol),
  );
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
    emit: (data) => out.has('custom') && publish('custom', data),
  });
  ctx.signal.throwIfAborted();
  if (asCompiledGraph(update)) throw new ReturnedGraphError(ctx.graph.id);
  const normalised = normaliseInput(update ?? {}) ?? {};
  const known = new Set((state.messages as MessageDict[]).map((m) => m.id));
  state = applyUpdate(state, normalised);
  const produced = ((normalised.messages as MessageDict[] | undefined) ?? []).filter((m) => !known.has(m.id));
  const nodeEnded = protocolEvents?.nodeMessages(ctx.graph.id, steps.taskId, produced, run.run_id);
  inOrder(
    () => steps.result(normalised),
    () => out.has('updates') && publish('updates', { [ctx.graph.id]: normalised }),
  );
  nodeEnded?.();
  const metadata = {
    langgraph_node: ctx.graph.id,
    langgraph_step: (parent?.step ?? -1) + 1,
    graph_id: ctx.graph.id,
    thread_id: run.thread_id,
    run_id: run.run_id,
  };
  for (const message of produced) out.message(message, metadata);
  inOrder(
    () => out.chunk([], 'values', state),
    () => commit('loop', { [ctx.graph.id]: normalised }),
  );
  steps.end(normalised);
  // as the last `values` event went: a run worker then posts the end state once
  return { values: out.wireValues(state) as Record<string, unknown>, next: [], interrupts: {}, ops };
}

export async function runLangGraph(ctx: RunContext): Promise<RunOutput> {
  if (ctx.graph.kind !== 'langgraph') throw new Error('not a LangGraph graph');
  const { run } = ctx;
  const kwargs = run.kwargs as Record<string, any>;
  const config = (kwargs.config ?? {}) as Record<string, any>;
  // what the graph's own LangGraph release can stream (olderLangGraph.ts)
  const support = streamSupport(ctx.graph.release ?? OWN_LANGGRAPH_RELEASE);
  const subgraphs = kwargs.stream_subgraphs === true && support.subgraphs;
  const out = new RunStream(streamModes(run), ctx.publish, subgraphs, kwargs.temporary !== true, ctx.valuesAsText);
  const olderMessages = !support.messagesMode && (out.has('messages') || out.has('messages-tuple'));
  const { OlderMessagesHandler, modesFor } = await olderLangGraphModule();
  const callbacks = [
    ...(Array.isArray(config.callbacks) ? config.callbacks : []),
    ...(ctx.tracer ? [ctx.tracer] : []),
    ...(olderMessages ? [new OlderMessagesHandler((message, metadata) => out.chunk([], 'messages', [message, metadata]))] : []),
  ];
  const { Command, createGraphRunStream } = await langGraph();
  const given = ctx.resumeFromCheckpoint ? null : kwargs.command ? new Command(kwargs.command) : (kwargs.input ?? null);
  const forkFrom = ctx.resumeFromCheckpoint ? undefined : forkCheckpointId(kwargs);
  if (forkFrom && !(await hasLangGraphCheckpoint(ctx.checkpointer, run.thread_id, forkFrom)) && (await ctx.plain.read(run.thread_id, forkFrom))) {
    throw otherKindForkError(run.thread_id, forkFrom, 'langgraph');
  }
  const input = given && !kwargs.command && !forkCheckpointId(kwargs) ? await withPlainRunsCarried(ctx, given) : given;
  // assigned key by key, not spread: a spread's copy gets a hidden class of its own each time
  // (ownCopy.ts), and LangChain copies these (its config's and configurable's) at every step
  const configurable: Record<string, unknown> = assignOwn({}, config.configurable);
  configurable.thread_id = run.thread_id;
  configurable.run_id = run.run_id;
  configurable.assistant_id = run.assistant_id;
  configurable.graph_id = ctx.graph.id;
  if (forkFrom) configurable.checkpoint_id = forkFrom;
  const options: Record<string, any> = assignOwn({}, config);
  options.configurable = configurable;
  options.metadata = runMetadata(run, ctx.graph.id, ctx.hostMetadata);
  // the run's trace spans come from the callbacks (with any the caller's config gives)
  options.callbacks = callbacks;
  options.context = kwargs.context;
  if (ctx.memory) options.store = ctx.memory;
  options.durability = runDurability(run);
  options.streamMode = modesFor(support, out.libraryModes());
  if (support.subgraphs) options.subgraphs = subgraphs;
  options.signal = ctx.signal;
  // the root run of stream events carries the run's id, so its own chunks can be told apart
  options.runId = run.run_id;
  if (kwargs.interrupt_before) options.interruptBefore = kwargs.interrupt_before;
  if (kwargs.interrupt_after) options.interruptAfter = kwargs.interrupt_after;
  // the wire's snake_case config keys, as LangGraph.js names them
  if (config.recursion_limit !== undefined) options.recursionLimit = config.recursion_limit;
  if (config.max_concurrency !== undefined) options.maxConcurrency = config.max_concurrency;
  const split = (chunk: unknown[]) => (subgraphs ? chunk : [[], ...chunk]) as unknown as [string[], string, unknown];
  if (isProtocolRun(run)) {
    // a protocol run streams LangGraph's own protocol events (as upstream's server runs it)
    const source = new RunProtocolSource(ctx.publish);
    // what `streamEvents(…, { version: "v3" })` does, through public methods: the graph here is a
    // copy (graphs.ts) without the original's private fields
    const graph = ctx.graph.graph as unknown as { stream(input: unknown, options: unknown): Promise<AsyncIterable<unknown>>; streamTransformers?: unknown[] };
    const chunks = graph.stream(input, { ...options, version: 'v3', streamMode: STREAM_EVENTS_V3_MODES, subgraphs: true });
    const events = createGraphRunStream(
      {
        [Symbol.asyncIterator]: async function* () {
          yield* await chunks;
        },
      } as never,
      [...(graph.streamTransformers ?? [])] as never,
    );
    for await (const event of events as unknown as AsyncIterable<GraphProtocolEvent>) source.take(event);
  } else if (out.has('events')) {
    // stream events v2 carry everything; the graph's own chunks arrive as its on_chain_stream.
    // Upstream always adds the debug mode (its checkpoint hooks read it): its chunks, never
    // sent unless asked, still pass through the stream and so place the other modes' chunks
    // among the events, which come in the same order here only with them.
    const streamMode = [...new Set([...options.streamMode, 'debug'])];
    for await (const event of ctx.graph.graph.streamEvents(input, { ...options, streamMode, version: 'v2' }) as AsyncIterable<StreamEvent>) {
      if (event.tags?.includes('langsmith:hidden')) continue;
      if (event.event === 'on_chain_stream' && event.run_id === run.run_id) out.chunk(...split(event.data.chunk as unknown[]));
      else out.event(event);
    }
  } else {
    // upstream runs every run through stream events, whose `version` option LangGraph reads as
    // "stream events": with subgraphs and values it then puts a checkpoint envelope before each
    // `values` chunk (RunStream sends it as upstream does). Given where that is its only effect.
    const stream = await ctx.graph.graph.stream(input, subgraphs ? { ...options, version: 'v2' } : options);
    for await (const chunk of stream as AsyncIterable<unknown[]>) out.chunk(...split(chunk));
  }
  const snapshot = await ctx.graph.graph.getState({ configurable: { thread_id: run.thread_id } });
  const interrupts: Record<string, Interrupt[]> = {};
  // as upstream: every task of the stop, with its interrupts (none for one `interrupt_before` stopped at)
  for (const task of snapshot.tasks ?? []) if (task.interrupts) interrupts[task.id] = task.interrupts.map(toInterrupt);
  return { values: out.wireValues(snapshot.values ?? {}) as Record<string, unknown>, next: [...(snapshot.next ?? [])], interrupts, ops: [] };
}

/** One thread, any graph: what plain-function runs added after this graph's last run goes ahead of the input. */
async function withPlainRunsCarried(ctx: RunContext, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (ctx.graph.kind !== 'langgraph' || typeof input !== 'object' || Array.isArray(input)) return input;
  const plain = await ctx.plain.read(ctx.run.thread_id);
  if (!plain) return input;
  const own = await ctx.graph.graph.getState({ configurable: { thread_id: ctx.run.thread_id } });
  const channels = Object.keys(ctx.graph.graph.channels ?? {});
  return langGraphRunInput(
    input,
    plain,
    own?.createdAt ? { values: serialiseValues(own.values ?? {}) as Record<string, unknown>, createdAt: own.createdAt } : undefined,
    channels,
  );
}

interface StreamEvent {
  event: string;
  run_id: string;
  tags?: string[];
  data: { chunk?: unknown };
}

/**
 * Input messages may be `{role, content}` dicts or strings; they become message dicts with ids:
 * their own, else those chosen for them when the run was stored (`ids`, inputMessageIds.ts).
 */
export function normaliseInput(input: unknown, ids?: readonly string[]): Record<string, unknown> | null {
  if (input === null || input === undefined) return null;
  if (typeof input !== 'object' || Array.isArray(input)) return { messages: [input].flat() };
  const { messages, ...rest } = input as Record<string, unknown>;
  if (messages === undefined) return { ...rest };
  return { ...rest, messages: (Array.isArray(messages) ? messages : [messages]).map((m, i) => toMessageDict(m, 'human', ids?.[i])) };
}

export function applyUpdate(state: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const next: Record<string, unknown> = { ...state };
  for (const [key, value] of Object.entries(update)) {
    next[key] = key === 'messages' ? addMessages((state.messages as MessageDict[] | undefined) ?? [], value) : value;
  }
  return next;
}
