// What a graph looks like from outside: its drawing (nodes and edges, as LangGraph's
// getGraph().toJSON() gives it) and JSON schemas of its input, output and state, derived from
// its channels when asked — never by parsing its source in a worker that can time out.
import type { RunnableGraph } from './graphs.ts';

export interface Drawing {
  nodes: { id: string | number; type?: string; data?: unknown }[];
  edges: { source: string | number; target: string | number; data?: unknown; conditional?: boolean }[];
}

export interface GraphSchemas {
  graph_id: string;
  input_schema: Record<string, unknown> | null;
  output_schema: Record<string, unknown> | null;
  state_schema: Record<string, unknown> | null;
  config_schema: Record<string, unknown> | null;
  context_schema: Record<string, unknown> | null;
}

const MESSAGES = { type: 'array', items: { type: 'object', description: 'A LangChain message (or {role, content})' } };

export async function drawGraph(graph: RunnableGraph, xray: boolean | number): Promise<Drawing> {
  if (graph.kind === 'plain') {
    return {
      nodes: [
        { id: '__start__', type: 'schema', data: '__start__' },
        { id: graph.id, type: 'runnable', data: graph.id },
        { id: '__end__', type: 'schema', data: '__end__' },
      ],
      edges: [
        { source: '__start__', target: graph.id },
        { source: graph.id, target: '__end__' },
      ],
    };
  }
  const compiled = graph.graph as unknown as { getGraphAsync?: (o: object) => Promise<{ toJSON(): Drawing }>; getGraph?: (o: object) => { toJSON(): Drawing } };
  const drawable = compiled.getGraphAsync ? await compiled.getGraphAsync({ xray }) : compiled.getGraph!({ xray });
  const json = drawable.toJSON();
  return { nodes: json.nodes.map((n) => ({ id: n.id, type: n.type, data: n.data })), edges: json.edges.map((e) => ({ source: e.source, target: e.target, ...(e.data !== undefined ? { data: e.data } : {}), ...(e.conditional ? { conditional: true } : {}) })) };
}

export function graphSchemas(graph: RunnableGraph): GraphSchemas {
  if (graph.kind === 'plain') {
    const state = { type: 'object', properties: { messages: MESSAGES }, additionalProperties: true };
    return { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null };
  }
  const channels = Object.keys(graph.graph.channels ?? {}).filter((name) => !name.startsWith('__') && !name.includes(':'));
  const properties = Object.fromEntries(channels.map((name) => [name, name === 'messages' ? MESSAGES : {}]));
  const state = { type: 'object', properties, additionalProperties: false };
  return { graph_id: graph.id, input_schema: state, output_schema: state, state_schema: state, config_schema: null, context_schema: null };
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
  const compiled = graph.graph as unknown as { getSubgraphsAsync?: (ns?: string, recurse?: boolean) => AsyncIterable<[string, { channels?: Record<string, unknown> }]> };
  const out: Record<string, SubgraphSchemas> = {};
  if (!compiled.getSubgraphsAsync) return out;
  for await (const [ns, sub] of compiled.getSubgraphsAsync(namespace, recurse)) {
    const schemas = graphSchemas({ id: graph.id, kind: 'langgraph', graph: sub as never });
    const keyed = { state: schemas.state_schema, input: schemas.input_schema, output: schemas.output_schema, config: schemas.config_schema };
    out[ns] = Object.fromEntries(Object.entries(keyed).filter(([, schema]) => schema !== null));
  }
  return out;
}
