// The graphs named in the project file: `{"graphs": {"<name>": "./module.ts:export"}}`.
// A graph is either a LangGraph.js compiled graph (its state kept by our checkpointer) or a
// plain async function `(state, context) => update` whose state agentplane keeps itself.
import path from 'node:path';
import { importProjectModule, importProjectModuleAgain, prepareProjectModules } from '../../../shared/projectModule.ts';
import { langGraphReleaseNear, unservedRelease } from '../../../shared/langGraphRelease.ts';
import type { BaseCheckpointSaver } from '@langchain/langgraph';

/** What a plain-function graph receives besides the thread's state. */
export interface PlainGraphContext {
  runId: string;
  threadId: string;
  assistantId: string;
  graphId: string;
  /** The run's input (after `{role, content}` messages were normalised). */
  input: Record<string, unknown> | null;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  signal: AbortSignal;
  /** The long-term memory store (a LangGraph BaseStore), shared with the /store API. */
  store?: import('@langchain/langgraph').BaseStore;
  /** Publishes a `custom` stream event. */
  emit(data: unknown): void;
}

export type PlainGraph = (
  state: Record<string, unknown>,
  context: PlainGraphContext,
) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

/** The members of a compiled LangGraph.js graph the server uses. */
export interface CompiledGraphLike {
  checkpointer?: unknown;
  channels?: Record<string, unknown>;
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  streamEvents(input: unknown, options: Record<string, unknown>): AsyncIterable<unknown>;
  getState(config: Record<string, unknown>, options?: Record<string, unknown>): Promise<any>;
  getStateHistory(config: Record<string, unknown>, options?: Record<string, unknown>): AsyncIterable<any>;
  updateState(config: Record<string, unknown>, values: unknown, asNode?: string): Promise<{ configurable?: Record<string, unknown> }>;
  bulkUpdateState(
    config: Record<string, unknown>,
    supersteps: { updates: { values?: unknown; asNode?: string }[] }[],
  ): Promise<{ configurable?: Record<string, unknown> }>;
}

/** A graph factory `(config) => graph` (sync or async), called with each run's config. */
export type GraphFactory = (config: Record<string, unknown>) => unknown;

/** Where a graph was exported from: the project module and the export (its schemas are read through them). */
export interface GraphSource {
  source?: string;
  exportName?: string;
  /** The release of @langchain/langgraph its module imports (the project's, else agentplane's). */
  release?: string;
}

export type LoadedGraph =
  | ({ id: string; kind: 'plain'; fn: PlainGraph; description?: string } & GraphSource)
  | ({ id: string; kind: 'langgraph'; graph: CompiledGraphLike; description?: string } & GraphSource)
  | ({ id: string; kind: 'factory'; make: GraphFactory; template: CompiledGraphLike; description?: string } & GraphSource);

/** A graph ready to execute or read: factories have been called for the config at hand. */
export type RunnableGraph = Exclude<LoadedGraph, { kind: 'factory' }>;

/**
 * The checkpointer graphs are given: a saver, or what makes one on first use (the store's,
 * StoreCheckpointer.langGraphSaver), so that loading no LangGraph graph imports no LangGraph.
 */
export type SaverSource = BaseCheckpointSaver | { langGraphSaver(): Promise<BaseCheckpointSaver> };

const saverOf = async (source: SaverSource | undefined): Promise<BaseCheckpointSaver | undefined> =>
  source && 'langGraphSaver' in source ? source.langGraphSaver() : source;

export class GraphRegistry {
  private graphs = new Map<string, LoadedGraph>();
  /** Loads the graphs where they are loaded later (deferred); its promise once asked. */
  private later?: { load: () => Promise<GraphRegistry>; kinds: Record<string, LoadedGraph['kind']>; loading?: Promise<void> };

  constructor(private readonly checkpointer?: SaverSource) {}

  /**
   * Graphs known to load (another thread loaded them: their ids and kinds), loaded here by `load`
   * when first awaited (`loaded()`): a start answers before this thread imports LangGraph.
   */
  static deferred(kinds: Record<string, LoadedGraph['kind']>, load: () => Promise<GraphRegistry>, checkpointer?: SaverSource): GraphRegistry {
    const registry = new GraphRegistry(checkpointer);
    registry.later = { load, kinds };
    return registry;
  }

  /** Resolves once the graphs are loaded here (at once unless deferred); `get` answers from then on. */
  loaded(): Promise<void> {
    const later = this.later;
    if (!later) return Promise.resolve();
    later.loading ??= later.load().then((registry) => {
      if (this.later === later) this.replaceWith(registry);
    });
    return later.loading;
  }

  /** The loaded graph (undefined until `loaded()` resolved where the graphs are deferred). */
  get(id: string): LoadedGraph | undefined {
    return this.graphs.get(id);
  }

  /** The graph's kind, known before it is loaded here. */
  kind(id: string): LoadedGraph['kind'] | undefined {
    return this.graphs.get(id)?.kind ?? this.later?.kinds[id];
  }

  /**
   * The graph to execute or read with this config: a factory is called with it (as the
   * upstream servers do per run) and its graph gets the server's checkpointer.
   */
  async resolve(id: string, config: Record<string, unknown> = {}): Promise<RunnableGraph | undefined> {
    await this.loaded();
    const graph = this.graphs.get(id);
    if (!graph || graph.kind !== 'factory') return graph;
    return {
      id,
      kind: 'langgraph',
      graph: await buildFromFactory(id, graph.make, config, this.checkpointer),
      description: graph.description,
      source: graph.source,
      exportName: graph.exportName,
      release: graph.release,
    };
  }

  /** A plain function turned out to be a factory (it returned a graph): from now on it is one. */
  async markFactory(id: string): Promise<void> {
    await this.loaded();
    const graph = this.graphs.get(id);
    if (graph?.kind !== 'plain') return;
    const make = graph.fn as unknown as GraphFactory;
    this.graphs.set(id, {
      id,
      kind: 'factory',
      make,
      template: await buildFromFactory(id, make, {}, this.checkpointer),
      description: graph.description,
      source: graph.source,
      exportName: graph.exportName,
      release: graph.release,
    });
  }

  ids(): string[] {
    return this.later ? Object.keys(this.later.kinds) : [...this.graphs.keys()];
  }

  add(graph: LoadedGraph): void {
    this.graphs.set(graph.id, graph);
  }

  /** Swaps in freshly loaded graphs (dev reload); runs in flight keep the ones they hold. */
  replaceWith(other: GraphRegistry): void {
    this.graphs = new Map(other.graphs);
    this.later = undefined;
  }

  async hasMessages(id: string): Promise<boolean> {
    await this.loaded();
    const graph = this.graphs.get(id);
    if (!graph) return false;
    if (graph.kind === 'plain') return (graph.fn as { hasMessages?: boolean }).hasMessages !== false;
    const compiled = graph.kind === 'factory' ? graph.template : graph.graph;
    return !compiled.channels || 'messages' in compiled.channels;
  }
}

/** The graph a factory makes for an empty config, or undefined when the function is not one. */
async function tryFactory(make: GraphFactory): Promise<CompiledGraphLike | undefined> {
  try {
    return asCompiledGraph(await make({ configurable: {} }));
  } catch {
    return undefined;
  }
}

async function buildFromFactory(id: string, make: GraphFactory, config: Record<string, unknown>, checkpointer?: SaverSource): Promise<CompiledGraphLike> {
  const compiled = asCompiledGraph(await make({ configurable: {}, ...config }));
  if (!compiled) throw new Error(`graph "${id}": its factory did not return a LangGraph graph`);
  const saver = await saverOf(checkpointer);
  if (saver) (compiled as { checkpointer?: unknown }).checkpointer = saver;
  return compiled;
}

/** Thrown by a plain-function graph's run when the function returned a graph: it is a factory. */
export class ReturnedGraphError extends Error {
  constructor(readonly graphId: string) {
    super(`graph "${graphId}" returned a graph: it is a factory`);
  }
}

/** A graph entry of the project file: `"./module.ts:export"` or `{"path": …, "description": …}`. */
export type GraphSpec = string | { path: string; description?: string; [key: string]: unknown };

export interface LoadOptions {
  /**
   * How a function export is read. `factory` (langgraph.json, as upstream): `(config) =>
   * graph`, called once at load to check, else a plain-function graph. `plain`
   * (agentplane.json): an agentplane plain-function graph, unless it returns a graph on its
   * first run, when it becomes a factory.
   */
  functions?: 'factory' | 'plain';
  /** Import the modules afresh (dev reload): each tsImport call re-evaluates the project's files. */
  fresh?: boolean;
}

/** The module and export a graph entry of the project file names (undefined: not a graph entry). */
export function graphSource(entry: GraphSpec, baseDir: string): { file: string; exportName: string } | undefined {
  const spec = typeof entry === 'string' ? entry : entry?.path;
  if (typeof spec !== 'string' || !spec) return undefined;
  const at = spec.lastIndexOf(':');
  const hasExport = at > 1; // a Windows drive letter is not an export name
  return { file: path.resolve(baseDir, hasExport ? spec.slice(0, at) : spec), exportName: hasExport ? spec.slice(at + 1) : 'default' };
}

/** Imports every configured graph; a bad entry stops the server with a clear message. */
export async function loadGraphs(
  specs: Record<string, GraphSpec>,
  baseDir: string,
  checkpointer: SaverSource,
  options: LoadOptions = {},
): Promise<GraphRegistry> {
  const registry = new GraphRegistry(checkpointer);
  // all the graphs' modules at once: what any of them imports is readied before the first loads
  if (!options.fresh) {
    const files = Object.values(specs).map((entry) => graphSource(entry, baseDir)?.file);
    await prepareProjectModules(files.filter((file) => file !== undefined));
  }
  for (const [id, entry] of Object.entries(specs)) {
    const located = graphSource(entry, baseDir);
    if (!located) throw new Error(`graph "${id}": expected "./path/to/module.ts:exportName" or {"path": …}, got ${JSON.stringify(entry)}`);
    const { file, exportName } = located;
    let module: Record<string, unknown>;
    try {
      module = await importModule(file, options.fresh ?? false);
    } catch (err) {
      throw new Error(`graph "${id}": cannot import ${file}: ${(err as Error).message}`);
    }
    if (!(exportName in module))
      throw new Error(`graph "${id}": ${file} has no export "${exportName}" (it exports: ${Object.keys(module).join(', ') || 'nothing'})`);
    // an exported promise (top-level async setup) resolves to the graph
    const value = await module[exportName];
    const description = typeof entry === 'object' ? entry.description : undefined;
    const template = typeof value === 'function' && options.functions === 'factory' ? await tryFactory(value as GraphFactory) : undefined;
    const release = langGraphReleaseNear(path.dirname(file));
    const graph: LoadedGraph = template
      ? { id, kind: 'factory', make: value as GraphFactory, template, description }
      : classify(id, value, `${file}:${exportName}`, description);
    // a LangGraph graph gets the checkpointer (a plain function's state is agentplane's own)
    if (graph.kind === 'langgraph') (graph.graph as { checkpointer?: unknown }).checkpointer = await saverOf(checkpointer);
    // a LangGraph too old to drive is refused at start, with the reason, rather than failing its runs
    const unserved = graph.kind === 'plain' ? undefined : unservedRelease(release);
    if (unserved) throw new Error(`graph "${id}": ${unserved}`);
    if (template) (template as { checkpointer?: unknown }).checkpointer = await saverOf(checkpointer);
    registry.add({ ...graph, source: file, exportName, release });
  }
  return registry;
}

async function importModule(file: string, fresh: boolean): Promise<Record<string, unknown>> {
  return fresh ? importProjectModuleAgain(file) : importProjectModule(file);
}

/**
 * Recognises a graph by what it does, never by `instanceof`, so a project whose own
 * @langchain/langgraph differs from agentplane's copy works: a builder has `compile`, a
 * compiled graph has `stream` and `getState`, createAgent's wrapper carries its compiled
 * graph in `graph`.
 */
export function asCompiledGraph(value: unknown): CompiledGraphLike | undefined {
  let candidate = value as Record<string, any> | undefined;
  if (!candidate || typeof candidate !== 'object') return undefined;
  if (typeof candidate.compile === 'function' && typeof candidate.getState !== 'function') candidate = candidate.compile();
  const inner = candidate?.graph as Record<string, any> | undefined;
  if (inner && typeof inner === 'object' && typeof inner.stream === 'function' && typeof inner.getState === 'function') candidate = inner;
  if (candidate && typeof candidate.stream === 'function' && typeof candidate.getState === 'function') return candidate as CompiledGraphLike;
  return undefined;
}

function classify(id: string, value: unknown, where: string, description?: string): LoadedGraph {
  const exported = asCompiledGraph(value);
  if (exported) {
    // like the upstream server: the server's checkpointer replaces whatever the graph had
    // (loadGraphs sets it) — on a shallow copy, since the module's graph object is shared by every server in the
    // process: set on the original, a second server's checkpointer (and store) would replace
    // the first's, and the first server's runs would read and write the second's. The copy
    // has the same prototype and fields (withConfig would also add a default config).
    const compiled = Object.assign(Object.create(Object.getPrototypeOf(exported)) as CompiledGraphLike, exported);
    return { id, kind: 'langgraph', graph: compiled, description };
  }
  if (typeof value === 'function') return { id, kind: 'plain', fn: value as PlainGraph, description };
  throw new Error(`graph "${id}": ${where} is neither a LangGraph graph (compiled or a builder), a graph factory, nor a function`);
}
