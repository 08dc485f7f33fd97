// Graphs a remembered check found loading (compose/graphsAtStart.ts): known by id and kind at
// once, loaded here once, when first needed (issue 86: the main thread's LangGraph import after its first 200).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphRegistry, type PlainGraph } from '../../../../src/domain/agent/graphs/graphs.ts';

const echo: PlainGraph = (state) => state;

function deferredEcho() {
  let loads = 0;
  const registry = GraphRegistry.deferred({ echo: 'plain', other: 'langgraph' }, async () => {
    loads += 1;
    const loaded = new GraphRegistry();
    loaded.add({ id: 'echo', kind: 'plain', fn: echo });
    return loaded;
  });
  return { registry, loads: () => loads };
}

test('deferred graphs answer their ids and kinds before they load, and load nothing until asked', () => {
  const { registry, loads } = deferredEcho();
  assert.deepEqual(registry.ids(), ['echo', 'other']);
  assert.equal(registry.kind('echo'), 'plain');
  assert.equal(registry.kind('other'), 'langgraph');
  assert.equal(registry.get('echo'), undefined);
  assert.equal(loads(), 0);
});

test('a read that needs a graph loads them once, and every read after finds them', async () => {
  const { registry, loads } = deferredEcho();
  const [resolved, again] = await Promise.all([registry.resolve('echo'), registry.resolve('echo')]);
  assert.equal(resolved?.kind, 'plain');
  assert.equal(again?.kind, 'plain');
  assert.equal(await registry.hasMessages('echo'), true);
  await registry.loaded();
  assert.equal(loads(), 1);
  assert.equal(registry.get('echo')?.kind, 'plain');
  // from now on what was loaded is what it knows
  assert.deepEqual(registry.ids(), ['echo']);
});

test('graphs loaded at once need no load', async () => {
  const registry = new GraphRegistry();
  registry.add({ id: 'echo', kind: 'plain', fn: echo });
  await registry.loaded();
  assert.equal(registry.kind('echo'), 'plain');
});
