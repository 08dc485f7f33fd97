// Layout of an assistant's graph for drawing: nodes in layers by their longest distance from
// __start__ (edges back to an earlier layer are loops), each layer a row, centred, __end__ last.
export interface GraphData {
  nodes: { id: string | number; name?: string; data?: unknown }[];
  edges: { source: string; target: string; conditional?: boolean; data?: unknown }[];
}
export interface Placed {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
}
export interface Layout {
  nodes: Placed[];
  edges: { source: Placed; target: Placed; conditional: boolean; back: boolean; label?: string }[];
  width: number;
  height: number;
}

export const NODE_HEIGHT = 36;
export const ROW_HEIGHT = 80;
const GAP = 32;
const CHAR = 8;

export function layoutGraph(graph: GraphData): Layout {
  const ids = graph.nodes.map((n) => String(n.id));
  const outgoing = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of graph.edges) outgoing.get(e.source)?.push(e.target);
  // depth-first order from the start marks edges that close a loop
  const start = ids.includes('__start__') ? '__start__' : ids[0];
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string) => {
    state.set(id, 'open');
    for (const next of outgoing.get(id) ?? []) {
      if (state.get(next) === 'open') back.add(`${id}->${next}`);
      else if (!state.has(next)) visit(next);
    }
    state.set(id, 'done');
  };
  if (start !== undefined) visit(start);
  for (const id of ids) if (!state.has(id)) visit(id);
  // longest path over the forward edges
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  for (let pass = 0; pass < ids.length; pass++) {
    let changed = false;
    for (const e of graph.edges) {
      if (back.has(`${e.source}->${e.target}`) || !layer.has(e.source) || !layer.has(e.target)) continue;
      const want = layer.get(e.source)! + 1;
      if (layer.get(e.target)! < want) {
        layer.set(e.target, want);
        changed = true;
      }
    }
    if (!changed) break;
  }
  // __end__ gets a row of its own below every node: beside a node, a loop from that node back
  // up would be drawn across it (tools → agent read as tools → __end__ → agent)
  if (layer.has('__end__')) layer.set('__end__', Math.max(0, ...ids.filter((id) => id !== '__end__').map((id) => layer.get(id)! + 1)));
  const rows: string[][] = [];
  for (const id of ids) (rows[layer.get(id)!] ??= []).push(id);
  const label = (id: string) => String(graph.nodes.find((n) => String(n.id) === id)?.name ?? id);
  const widthOf = (id: string) => Math.max(80, label(id).length * CHAR + 24);
  const rowWidths = rows.map((row) => (row ?? []).reduce((sum, id) => sum + widthOf(id), 0) + GAP * ((row ?? []).length - 1));
  const width = Math.max(200, ...rowWidths) + 160;
  const placed = new Map<string, Placed>();
  rows.forEach((row, r) => {
    let x = (width - rowWidths[r]) / 2;
    for (const id of row ?? []) {
      placed.set(id, { id, label: label(id), x, y: 20 + r * ROW_HEIGHT, width: widthOf(id) });
      x += widthOf(id) + GAP;
    }
  });
  return {
    nodes: [...placed.values()],
    edges: graph.edges
      .filter((e) => placed.has(e.source) && placed.has(e.target))
      .map((e) => ({
        source: placed.get(e.source)!,
        target: placed.get(e.target)!,
        conditional: Boolean(e.conditional),
        back: back.has(`${e.source}->${e.target}`) || layer.get(e.target)! <= layer.get(e.source)!,
        label: typeof e.data === 'string' ? e.data : undefined,
      })),
    width,
    height: 20 + (rows.length - 1) * ROW_HEIGHT + NODE_HEIGHT + 20,
  };
}
