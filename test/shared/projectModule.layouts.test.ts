// Projects load as the upstream dev server loads them, whatever their package's module type
// (issue 90, item 0): a graph in a package with no "type" field (what `npm i
// @langchain/langgraph` writes) importing a sibling TypeScript file stopped the server with
// `Unexpected token ':'`, however the import was spelled. Every cell of the layout matrix
// (test/support/projectLayouts.ts) is loaded here by the loader the server and its run
// workers use, and run; the differential suite serves the same matrix on both servers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { MemorySaver } from '@langchain/langgraph';
import { loadGraphs, type GraphRegistry } from '../../src/domain/agent/graphs/graphs.ts';
import { typescriptLoaderRegistered } from '../../src/shared/typescriptLoader.ts';
import { layoutCells, writeLayoutProject, type LayoutCell } from '../support/projectLayouts.ts';
import { ROOT } from '../support/server.ts';

const cells = layoutCells();
const specs = (of: LayoutCell[]) => Object.fromEntries(of.map((cell) => [cell.id, `./${cell.id}/${cell.graph}:graph`]));

async function answers(registry: GraphRegistry, id: string): Promise<unknown> {
  const loaded = registry.get(id);
  assert.equal(loaded?.kind, 'langgraph', `${id} loads as a LangGraph graph`);
  const graph = (loaded as unknown as { graph: { invoke(input: unknown, config: unknown): Promise<unknown> } }).graph;
  return graph.invoke({ n: 3 }, { configurable: { thread_id: randomUUID() } });
}

describe('a project loads as the upstream dev server loads it, whatever its layout', () => {
  // inside the repository, so that its imports of LangGraph resolve to the repository's copy
  const dir = path.join(ROOT, '.cache', `project-layouts-${randomUUID()}`);
  before(() => writeLayoutProject(dir, cells));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // first: the process has not registered tsx yet (the runner runs compiled tests without hooks)
  it('JavaScript graphs that Node cannot load as written (an extensionless sibling of an ES module) load through tsx', async () => {
    const javascript = cells.filter((cell) => cell.graph.endsWith('.js'));
    const registry = await loadGraphs(specs(javascript), dir, new MemorySaver());
    for (const cell of javascript) assert.deepEqual(await answers(registry, cell.id), { n: 6 }, cell.id);
    assert.ok(typescriptLoaderRegistered(), "module_js_bare's `./u1` is resolved by tsx's hooks, registered for it");
  });

  it('every layout: no "type", "module" and "commonjs" packages; .ts, .js and extensionless siblings; .mts, .cts; tsconfig aliases; a CommonJS dependency', async () => {
    const registry = await loadGraphs(specs(cells), dir, new MemorySaver());
    const answered = Object.fromEntries(await Promise.all(cells.map(async (cell) => [cell.id, await answers(registry, cell.id)] as const)));
    assert.deepEqual(answered, Object.fromEntries(cells.map((cell) => [cell.id, { n: 6 }])));
  });

  it('the default layout of the issue: a package.json without "type", a graph importing "./u1.ts"', async () => {
    const registry = await loadGraphs(specs(cells.filter((cell) => cell.id === 'none_ts_ts')), dir, new MemorySaver());
    assert.deepEqual(await answers(registry, 'none_ts_ts'), { n: 6 });
  });

  it('a reload (agentplane dev) evaluates a CommonJS graph and the sibling it imports again', async () => {
    // a project of its own: the sibling is edited
    const own = path.join(ROOT, '.cache', `project-layouts-${randomUUID()}`);
    try {
      const cell = cells.find((c) => c.id === 'none_ts_bare')!;
      writeLayoutProject(own, [cell]);
      assert.deepEqual(await answers(await loadGraphs(specs([cell]), own, new MemorySaver()), cell.id), { n: 6 });
      fs.writeFileSync(path.join(own, cell.id, 'u1.ts'), 'export const twice = (a: number): number => a * 10;\n');
      assert.deepEqual(await answers(await loadGraphs(specs([cell]), own, new MemorySaver(), { fresh: true }), cell.id), { n: 30 });
    } finally {
      fs.rmSync(own, { recursive: true, force: true });
    }
  });
});
