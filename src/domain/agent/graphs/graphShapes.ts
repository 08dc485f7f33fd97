// What a graph looks like from outside: its drawing (nodes and edges, as LangGraph's
// getGraph().toJSON() gives it) and JSON schemas of its input, output, state and config:
// those its author declared (declaredSchemas.ts), else its module's TypeScript types (ports/graphTypeReader.ts), else its channels.
import type { GraphSchemas } from '../../../../generated/agent-server/types.gen.ts';
import type { LoadedGraph, RunnableGraph } from './graphs.ts';
import { declaredSchemas, type DeclaredSchemas } from './declaredSchemas.ts';
import { graphTypeReader, type TypedSchemas } from '../../ports/graphTypeReader.ts';

export interface Drawing {
  nodes: { id: string | number; type?: string; data?: unknown; metadata?: unknown }[];
  /** `conditional` is always there (false too), as upstream's drawings have it. */
  edges: { source: string | number; target: string | number; data?: unknown; conditional: boolean }[];
}

/** A graph's schemas as the API answers them (`GET /assistants/{id}/schemas`). */
export type { GraphSchemas };

const MESSAGES = { type: 'array', items: { type: 'object', description: 'A LangChain message (or {role, content})' } };

/** LangGraph's own drawing, where `conditional` is there only when true. */
type DrawnGraph = { nodes: Drawing['nodes']; edges: (Omit<Drawing['edges'][number], 'conditional'> & { conditional?: boolean })[] };

export async function drawGraph(graph: RunnableGraph, xray: boolean | number): Promise<Drawing> {
  if (graph.kind === 'plain') {
    return {
      nodes: [
        { id: '__start__', type: 'schema', data: '__start__' },
        { id: graph.id, type: 'runnable', data: graph.id },
        { id: '__end__', type: 'schema', data: '__end__' },
      ],
      edges: [
        { source: '__start__', target: graph.id, conditional: false },
        { source: graph.id, target: '__end__', conditional: false },
      ],
    };
  }
  const compiled = graph.graph as unknown as {
    getGraphAsync?: (o: object) => Promise<{ toJSON(): DrawnGraph }>;
    getGraph?: (o: object) => { toJSON(): DrawnGraph };
  };
  const drawable = compiled.getGraphAsync ? await compiled.getGraphAsync({ xray }) : compiled.getGraph!({ xray });
  const json = drawable.toJSON();
  return {
    // a node's metadata (LangChain 1.4 on writes it: `__tools` of a tool node) is kept, as upstream returns toJSON() whole
    nodes: json.nodes.map((n) => ({ id: n.id, type: n.type, data: n.data, ...(n.metadata !== undefined ? { metadata: n.metadata } : {}) })),
    edges: json.edges.map((e) => ({
      source: e.source,
      target: e.target,
      ...(e.data !== undefined ? { data: e.data } : {}),
      conditional: e.conditional === true,
    })),
  };
}

/**
 * The graph's schemas: those its author declared (StateSchema or Zod: real types, enums,
 * defaults, `langgraph_type`), read as the upstream server reads them — context_schema is the
 * config schema, as there (in JS the two are one declaration); else, unless `readTypes` is
 * false, the types of its module's TypeScript (as upstream's static extraction); else channel names.
 */
export async function graphSchemas(graph: RunnableGraph, options: { readTypes?: boolean; types?: DeclaredSchemas } = {}): Promise<GraphSchemas> {
  if (graph.kind === 'plain') {
    const state = { type: 'object', properties: { messages: MESSAGES }, additionalProperties: true };
    return { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null };
  }
  const declared =
    (await declaredSchemas(graph.graph, graph.source)) ??
    options.types ??
    (options.readTypes === false ? undefined : await graphTypeReader()?.read(graph.source, graph.exportName));
  if (declared) {
    const config = declared.config ?? null;
    return {
      graph_id: graph.id,
      input_schema: declared.input ?? null,
      output_schema: declared.output ?? null,
      state_schema: declared.state ?? null,
      config_schema: config,
      context_schema: config,
    };
  }
  const channels = Object.keys(graph.graph.channels ?? {}).filter((name) => !name.startsWith('__') && !name.includes(':'));
  const properties = Object.fromEntries(channels.map((name) => [name, name === 'messages' ? MESSAGES : {}]));
  const state = { type: 'object', properties, additionalProperties: false };
  return { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null };
}

/** Reads the types of the graphs whose schemas will come from them (those that declare none), in the background; resolves once that is over. */
export async function warmGraphSchemas(graphs: LoadedGraph[]): Promise<void> {
  const typed: LoadedGraph[] = [];
  for (const graph of graphs) {
    if (graph.kind === 'plain') continue;
    const compiled = graph.kind === 'factory' ? graph.template : graph.graph;
    if (!(await declaredSchemas(compiled, graph.source).catch(() => undefined))) typed.push(graph);
  }
  await graphTypeReader()?.warm(typed);
}

/** One subgraph's schemas under upstream's keys (a schema that cannot be told is left out). */
export interface SubgraphSchemas {
  state?: Record<string, unknown>;
  input?: Record<string, unknown>;
  output?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

/** Subgraph schemas by namespace (`recurse` includes nested ones), from LangGraph's getSubgraphs. */
export async function subgraphSchemas(graph: RunnableGraph, namespace: string | undefined, recurse: boolean): Promise<Record<string, SubgraphSchemas>> {
  if (graph.kind === 'plain') return {};
  const compiled = graph.graph as unknown as {
    getSubgraphsAsync?: (ns?: string, recurse?: boolean) => AsyncIterable<[string, { channels?: Record<string, unknown> }]>;
  };
  const out: Record<string, SubgraphSchemas> = {};
  if (!compiled.getSubgraphsAsync) return out;
  // a subgraph has no export of its own: its types are read from the exported graph's module
  // (where it is added as a node), once one needs them
  let typed: Promise<TypedSchemas | undefined> | undefined;
  for await (const [ns, sub] of compiled.getSubgraphsAsync(namespace, recurse)) {
    const declared = await declaredSchemas(sub, graph.source);
    const types = declared
      ? undefined
      : (await (typed ??= graphTypeReader()?.read(graph.source, graph.exportName) ?? Promise.resolve(undefined)))?.subgraphs?.[ns];
    const schemas = await graphSchemas({ id: graph.id, kind: 'langgraph', graph: sub as never, source: graph.source }, { types });
    const keyed = { state: schemas.state_schema, input: schemas.input_schema, output: schemas.output_schema, config: schemas.config_schema };
    out[ns] = Object.fromEntries(Object.entries(keyed).filter(([, schema]) => schema !== null));
  }
  return out;
}
