// The graphs named in the project file: `{"graphs": {"<name>": "./module.ts:export"}}`.
// A graph is either a LangGraph.js compiled graph (its state kept by our checkpointer) or a
// plain async function `(state, context) => update` whose state agentplane keeps itself.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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

export type PlainGraph = (state: Record<string, unknown>, context: PlainGraphContext) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

/** The members of a compiled LangGraph.js graph the server uses. */
export interface CompiledGraphLike {
  checkpointer?: unknown;
  channels?: Record<string, unknown>;
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: Record<string, unknown>, options?: Record<string, unknown>): Promise<any>;
  getStateHistory(config: Record<string, unknown>, options?: Record<string, unknown>): AsyncIterable<any>;
  updateState(config: Record<string, unknown>, values: unknown, asNode?: string): Promise<{ configurable?: Record<string, unknown> }>;
  bulkUpdateState(config: Record<string, unknown>, supersteps: { updates: { values?: unknown; asNode?: string }[] }[]): Promise<{ configurable?: Record<string, unknown> }>;
}

export type LoadedGraph =
  | { id: string; kind: 'plain'; fn: PlainGraph; description?: string }
  | { id: string; kind: 'langgraph'; graph: CompiledGraphLike; description?: string };

export class GraphRegistry {
  private readonly graphs = new Map<string, LoadedGraph>();

  get(id: string): LoadedGraph | undefined {
    return this.graphs.get(id);
  }

  ids(): string[] {
    return [...this.graphs.keys()];
  }

  add(graph: LoadedGraph): void {
    this.graphs.set(graph.id, graph);
  }

  hasMessages(id: string): boolean {
    const graph = this.graphs.get(id);
    if (!graph) return false;
    if (graph.kind === 'plain') return (graph.fn as { hasMessages?: boolean }).hasMessages !== false;
    return !graph.graph.channels || 'messages' in graph.graph.channels;
  }
}

/** A graph entry of the project file: `"./module.ts:export"` or `{"path": …, "description": …}`. */
export type GraphSpec = string | { path: string; description?: string; [key: string]: unknown };

/** Imports every configured graph; a bad entry stops the server with a clear message. */
export async function loadGraphs(specs: Record<string, GraphSpec>, baseDir: string, checkpointer: BaseCheckpointSaver): Promise<GraphRegistry> {
  const registry = new GraphRegistry();
  for (const [id, entry] of Object.entries(specs)) {
    const spec = typeof entry === 'string' ? entry : entry?.path;
    if (typeof spec !== 'string' || !spec) throw new Error(`graph "${id}": expected "./path/to/module.ts:exportName" or {"path": …}, got ${JSON.stringify(entry)}`);
    const at = spec.lastIndexOf(':');
    const hasExport = at > 1; // a Windows drive letter is not an export name
    const file = path.resolve(baseDir, hasExport ? spec.slice(0, at) : spec);
    const exportName = hasExport ? spec.slice(at + 1) : 'default';
    let module: Record<string, unknown>;
    try {
      module = await import(pathToFileURL(file).href);
    } catch (err) {
      throw new Error(`graph "${id}": cannot import ${file}: ${(err as Error).message}`);
    }
    if (!(exportName in module)) throw new Error(`graph "${id}": ${file} has no export "${exportName}" (it exports: ${Object.keys(module).join(', ') || 'nothing'})`);
    // an exported promise (top-level async setup) resolves to the graph
    const value = await module[exportName];
    registry.add(classify(id, value, `${file}:${exportName}`, checkpointer, typeof entry === 'object' ? entry.description : undefined));
  }
  return registry;
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

function classify(id: string, value: unknown, where: string, checkpointer: BaseCheckpointSaver, description?: string): LoadedGraph {
  const compiled = asCompiledGraph(value);
  if (compiled) {
    // like the upstream server: the server's checkpointer replaces whatever the graph had
    (compiled as { checkpointer?: unknown }).checkpointer = checkpointer;
    return { id, kind: 'langgraph', graph: compiled, description };
  }
  if (typeof value === 'function') return { id, kind: 'plain', fn: value as PlainGraph, description };
  throw new Error(`graph "${id}": ${where} is neither a LangGraph graph (compiled or a builder), a graph factory, nor a function`);
}
