// A project laid out every way a LangGraph.js project is laid out (issue 90, item 0), written
// by the tests (never copied from elsewhere): each graph, in a folder that is a package of its
// own, doubles `n` with a function it imports from a sibling module, a tsconfig `paths` alias
// or a CommonJS dependency. Cells: the package's module type (no "type" field, which is what
// `npm i @langchain/langgraph` writes; "module"; "commonjs") × the graph's language × how the
// sibling is spelled, then .mts and .cts graphs, aliases and a CommonJS dependency. Served by
// the upstream dev server and agentplane alike (test/handlers/agent-server.layouts.differential.test.ts),
// and loaded in process (test/shared/projectModule.layouts.test.ts).
import fs from 'node:fs';
import path from 'node:path';

export type PackageType = 'none' | 'module' | 'commonjs';

export interface LayoutCell {
  /** The graph's id in langgraph.json (also its folder). */
  id: string;
  packageType: PackageType;
  /** The graph module's name in its folder. */
  graph: string;
  /** The import the graph doubles `n` with (`./u1.ts`, `@shared/twice`, `layout-cjs-dep`). */
  specifier: string;
  /** Modules beside the graph: name → text. */
  siblings: Record<string, string>;
}

const TWICE_TS = 'export const twice = (a: number): number => a * 2;\n';
const TWICE_JS = 'export const twice = (a) => a * 2;\n';
const PACKAGE_TYPES: PackageType[] = ['none', 'module', 'commonjs'];

/** Every cell of the matrix. */
export function layoutCells(): LayoutCell[] {
  const cells: LayoutCell[] = [];
  for (const packageType of PACKAGE_TYPES) {
    for (const [spelling, specifier] of [
      ['ts', './u1.ts'],
      ['js', './u1.js'],
      ['bare', './u1'],
    ])
      cells.push({ id: `${packageType}_ts_${spelling}`, packageType, graph: 'graph.ts', specifier, siblings: { 'u1.ts': TWICE_TS } });
    for (const [spelling, specifier] of [
      ['js', './u1.js'],
      ['bare', './u1'],
    ])
      cells.push({ id: `${packageType}_js_${spelling}`, packageType, graph: 'graph.js', specifier, siblings: { 'u1.js': TWICE_JS } });
    cells.push({ id: `${packageType}_mts`, packageType, graph: 'graph.mts', specifier: './u1.mjs', siblings: { 'u1.mts': TWICE_TS } });
    cells.push({ id: `${packageType}_cts`, packageType, graph: 'graph.cts', specifier: './u1.cjs', siblings: { 'u1.cts': TWICE_TS } });
    cells.push({ id: `${packageType}_alias`, packageType, graph: 'graph.ts', specifier: '@shared/twice', siblings: {} });
    cells.push({ id: `${packageType}_cjs_dependency`, packageType, graph: 'graph.ts', specifier: 'layout-cjs-dep', siblings: {} });
  }
  return cells;
}

/** The graph module's text: TypeScript annotations only where the file is TypeScript. */
function graphText(cell: LayoutCell): string {
  const typed = !cell.graph.endsWith('.js');
  return [
    "import { Annotation, StateGraph } from '@langchain/langgraph';",
    `import { twice } from '${cell.specifier}';`,
    typed ? 'const S = Annotation.Root({ n: Annotation<number> });' : 'const S = Annotation.Root({ n: Annotation() });',
    `export const graph = new StateGraph(S).addNode('d', async (s${typed ? ': typeof S.State' : ''}) => ({ n: twice(s.n) })).addEdge('__start__', 'd').compile();`,
    '',
  ].join('\n');
}

/**
 * Writes the project into `dir`: langgraph.json at its root (whose own package.json has no
 * "type"), `cells` its graphs, the alias's target and the CommonJS dependency in its node_modules.
 */
export function writeLayoutProject(dir: string, cells: LayoutCell[] = layoutCells()): void {
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
  };
  write('package.json', JSON.stringify({ name: 'layouts', private: true }, null, 2));
  // aliases as tsconfig.json declares them (no baseUrl: relative to this file)
  write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, paths: { '@shared/*': ['./shared/*'] } } }, null, 2));
  write('shared/twice.ts', TWICE_TS);
  // a CommonJS package: module.exports filled by assignments, as TypeScript's and Babel's CommonJS output is
  write('node_modules/layout-cjs-dep/package.json', JSON.stringify({ name: 'layout-cjs-dep', version: '1.0.0', main: 'index.js' }, null, 2));
  write(
    'node_modules/layout-cjs-dep/index.js',
    "'use strict';\nObject.defineProperty(exports, '__esModule', { value: true });\nexports.twice = (a) => a * 2;\n",
  );
  const graphs: Record<string, string> = {};
  for (const cell of cells) {
    const manifest = { name: `layout-${cell.id.replace(/_/g, '-')}`, private: true, ...(cell.packageType === 'none' ? {} : { type: cell.packageType }) };
    write(`${cell.id}/package.json`, JSON.stringify(manifest, null, 2));
    write(`${cell.id}/${cell.graph}`, graphText(cell));
    for (const [name, text] of Object.entries(cell.siblings)) write(`${cell.id}/${name}`, text);
    graphs[cell.id] = `./${cell.id}/${cell.graph}:graph`;
  }
  write('langgraph.json', JSON.stringify({ node_version: '20', graphs, dependencies: ['.'] }, null, 2));
}
