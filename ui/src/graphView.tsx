// An assistant's graph drawn as SVG from GET /assistants/{id}/graph, with the same edges
// listed as text for screen readers and anyone who prefers reading. Where the run is: the nodes
// it is executing now, the node it is paused at (a breakpoint or an interrupt) and the node that
// failed are marked (and said so in their accessible name).
import { layoutGraph, NODE_HEIGHT, ROW_HEIGHT, type GraphData } from './graph';

export interface GraphMarks {
  /** Executing now. */
  running?: string[];
  /** The thread waits before (or inside) these: a breakpoint or an interrupt. */
  paused?: string[];
  /** Raised in the last run. */
  failed?: string[];
}

/** A node's state for its mark: running wins over failed (a retry), failed over paused. */
const stateOf = (id: string, { running = [], paused = [], failed = [] }: GraphMarks) =>
  running.includes(id) ? 'running' : failed.includes(id) ? 'failed' : paused.includes(id) ? 'paused' : undefined;

export function GraphView({ graph, running = [], paused = [], failed = [] }: { graph: GraphData } & GraphMarks) {
  const layout = layoutGraph(graph);
  const marks = { running, paused, failed };
  return (
    <figure class="graph">
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width={layout.width}
        height={layout.height}
        role="img"
        aria-label={`Graph with ${layout.nodes.length} nodes and ${layout.edges.length} edges`}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
          </marker>
        </defs>
        {layout.edges.map((e, i) => {
          const x1 = e.source.x + e.source.width / 2;
          const x2 = e.target.x + e.target.width / 2;
          let d: string;
          if (e.back) {
            // loops go round the right-hand side, clear of every node of the rows they pass
            const passed = layout.nodes.filter((n) => n.y >= e.target.y && n.y <= e.source.y);
            const side = Math.max(...passed.map((n) => n.x + n.width)) + 40;
            const y1 = e.source.y + NODE_HEIGHT / 2;
            const y2 = e.target.y + NODE_HEIGHT / 2;
            d = `M ${e.source.x + e.source.width} ${y1} C ${side} ${y1}, ${side} ${y2}, ${e.target.x + e.target.width} ${y2}`;
          } else if (e.target.y - e.source.y > ROW_HEIGHT) {
            // an edge that skips layers bows out to the left, clear of the nodes between
            const y1 = e.source.y + NODE_HEIGHT / 2;
            const y2 = e.target.y + NODE_HEIGHT / 2;
            const side = Math.min(e.source.x, e.target.x) - 60;
            d = `M ${e.source.x} ${y1} C ${side} ${y1}, ${side} ${y2}, ${e.target.x} ${y2}`;
          } else {
            const y1 = e.source.y + NODE_HEIGHT;
            const y2 = e.target.y;
            d = `M ${x1} ${y1} C ${x1} ${(y1 + y2) / 2}, ${x2} ${(y1 + y2) / 2}, ${x2} ${y2}`;
          }
          return (
            <path key={i} d={d} data-edge={`${e.source.id}->${e.target.id}`} class={`edge${e.conditional ? ' conditional' : ''}`} marker-end="url(#arrow)" />
          );
        })}
        {layout.nodes.map((n) => {
          const state = stateOf(n.id, marks);
          return (
            <g
              key={n.id}
              class={`node${n.id.startsWith('__') ? ' terminal' : ''}${state ? ` ${state}` : ''}`}
              data-node={n.id}
              data-running={state === 'running' ? 'true' : undefined}
              data-state={state}
            >
              {state && <title>{`${n.label} (${state})`}</title>}
              <rect x={n.x} y={n.y} width={n.width} height={NODE_HEIGHT} rx="8" />
              <text x={n.x + n.width / 2} y={n.y + NODE_HEIGHT / 2 + 5} text-anchor="middle">
                {n.label}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <details>
          <summary>Edges as text</summary>
          <ul>
            {layout.edges.map((e, i) => (
              <li key={i}>
                {e.source.label} → {e.target.label}
                {e.conditional ? ' (conditional)' : ''}
              </li>
            ))}
          </ul>
        </details>
        <span class="muted"> Dashed: conditional edge. Marked: running (thick yellow), paused (dashed), failed (red).</span>
      </figcaption>
    </figure>
  );
}
