// The graph drawing's layout (ui/src/graph.ts): layers from __start__, loops recognised,
// nothing overlapping, a small graph well inside one 1280×800 screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layoutGraph, NODE_HEIGHT } from '../../ui/src/graph.ts';

// the shape GET /assistants/{id}/graph gives for the shipped tool-calling agent
const agentGraph = {
  nodes: [{ id: '__start__' }, { id: 'agent' }, { id: 'tools' }, { id: '__end__' }],
  edges: [
    { source: '__start__', target: 'agent' },
    { source: 'agent', target: 'tools', conditional: true },
    { source: 'agent', target: '__end__', conditional: true },
    { source: 'tools', target: 'agent' },
  ],
};

test('nodes are layered from __start__ down to __end__; the edge back to agent is a loop', () => {
  const layout = layoutGraph(agentGraph);
  const y = Object.fromEntries(layout.nodes.map((n) => [n.id, n.y]));
  // __end__ below tools, not beside it: the loop tools → agent would be drawn across it
  assert.ok(y.__start__ < y.agent && y.agent < y.tools && y.tools < y.__end__, JSON.stringify(y));
  const loops = layout.edges.filter((e) => e.back).map((e) => `${e.source.id}->${e.target.id}`);
  assert.deepEqual(loops, ['tools->agent']);
  assert.deepEqual(
    layout.edges.filter((e) => e.conditional).map((e) => e.target.id),
    ['tools', '__end__'],
  );
});

test('nodes of one layer do not overlap and the drawing stays small', () => {
  const wide = {
    nodes: [{ id: '__start__' }, ...['a', 'b', 'c', 'd'].map((id) => ({ id })), { id: '__end__' }],
    edges: [
      ...['a', 'b', 'c', 'd'].flatMap((id) => [
        { source: '__start__', target: id },
        { source: id, target: '__end__' },
      ]),
    ],
  };
  const layout = layoutGraph(wide);
  const row = layout.nodes.filter((n) => n.y === layout.nodes.find((m) => m.id === 'a')!.y).sort((p, q) => p.x - q.x);
  assert.equal(row.length, 4);
  for (let i = 1; i < row.length; i++) assert.ok(row[i].x >= row[i - 1].x + row[i - 1].width, 'overlap');
  assert.ok(layout.width < 1280 && layout.height < 800 - NODE_HEIGHT);
});
