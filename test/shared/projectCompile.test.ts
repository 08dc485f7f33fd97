// `serve` compiles the project's TypeScript with esbuild ahead and imports the JavaScript, without
// tsx's hooks (issue 86: the main thread waited ~100-150 ms for tsx's hooks thread to start, then
// for each module it compiled). Served so, a project answers as through tsx: each module once
// however many graphs import it, `import.meta` naming the source, packages resolving as from the
// source, JSON beside it; what cannot be compiled as tsx runs it (CommonJS, require(), a computed
// import, import.meta otherwise, a syntax error) loads through tsx as before, and says why. The
// tests that load modules run in order: the first ones need a process where tsx is not registered,
// and tsx takes the tsconfig of the first module it loads (here the served project's, without the
// layouts' alias: the alias cells through tsx are projectModule.layouts.test.ts's).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MemorySaver } from '@langchain/langgraph';
import { loadGraphs, type GraphRegistry, type PlainGraph } from '../../src/domain/agent/graphs/graphs.ts';
import { compileProject } from '../../src/shared/projectCompile.ts';
import { compileProjectModules, compiledProjectModules } from '../../src/shared/projectModule.ts';
import { typescriptLoaderRegistered } from '../../src/shared/typescriptLoader.ts';
import { esbuildServicesLeft } from '../support/esbuildServices.ts';
import { layoutCells, writeLayoutProject, type LayoutCell } from '../support/projectLayouts.ts';
import { ROOT } from '../support/server.ts';
import { tempDir } from '../support/tempDirs.ts';

/** The set folders (`…/.cache/agentplane/modules/<hash>`) the compiled copies of `urls` were written in. */
const setsOf = (urls: Iterable<string>) => new Set([...urls].map((url) => /^(.*\/\.cache\/agentplane\/modules\/[0-9a-f]{16})\//.exec(fileURLToPath(url))![1]));

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

/** A plain-function graph's answer. */
async function answer(registry: GraphRegistry, id: string): Promise<Record<string, unknown>> {
  const loaded = registry.get(id);
  assert.equal(loaded?.kind, 'plain', id);
  return ((await (loaded as { fn: PlainGraph }).fn({}, {} as never)) ?? {}) as Record<string, unknown>;
}

async function langGraphAnswer(registry: GraphRegistry, id: string): Promise<unknown> {
  const graph = (registry.get(id) as unknown as { graph: { invoke(input: unknown, config: unknown): Promise<unknown> } }).graph;
  return graph.invoke({ n: 3 }, { configurable: { thread_id: randomUUID() } });
}

// inside the repository, so that the projects' imports of LangGraph resolve to the repository's copy
const dir = path.join(ROOT, '.cache', `project-compile-${randomUUID()}`);
const sets = new Set<string>();
after(() => {
  for (const set of sets) fs.rmSync(set, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a project compiled ahead is served from its JavaScript, without tsx', () => {
  const project = path.join(dir, 'served');
  const cells = layoutCells().filter((cell) =>
    ['module_ts_ts', 'module_ts_js', 'module_ts_bare', 'module_mts', 'none_mts', 'commonjs_mts', 'module_cjs_dependency'].includes(cell.id),
  );
  before(() => {
    writeLayoutProject(path.join(project, 'layouts'), cells);
    write(project, {
      'package.json': JSON.stringify({ name: 'compiled-project', private: true, type: 'module' }),
      // as tsx takes it: the nearest the first module's (one per process); an alias to a module of this package
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, paths: { '@lib/*': ['./lib/*'] } } }),
      'lib/twice.ts': 'export const twice = (a: number): number => a * 2;\n',
      'settings.json': JSON.stringify({ factor: 3 }),
      'shared.ts': [
        'export const instance: symbol = Symbol("shared");',
        'export const url: string = import.meta.url;',
        'export const dirname: string = import.meta.dirname;',
        'export const stack = (): string => new Error().stack ?? "";',
        '',
      ].join('\n'),
      'graphs/one.ts': [
        "import { instance, url, dirname, stack } from '../shared.js';",
        "import { twice } from '@lib/twice';",
        "import settings from '../settings.json' with { type: 'json' };",
        "import type { PlainGraphContext } from 'agentplane-server/nothing';",
        'export async function one(_state: unknown, _context?: PlainGraphContext) {',
        '  return { instance, url, dirname, here: import.meta.url, file: import.meta.filename, factor: twice(settings.factor), stack: stack() };',
        '}',
        '',
      ].join('\n'),
      // extensionless, and a module imported only when the graph runs
      'graphs/two.ts':
        "import { instance } from '../shared';\nexport const two = async () => ({ instance, later: (await import('../later.ts')).later === instance });\n",
      'later.ts': "import { instance } from './shared.ts';\nexport const later = instance;\n",
    });
  });

  it('each module once, import.meta naming the source, JSON beside it, and no tsx', async () => {
    const layouts = Object.fromEntries(cells.map((cell: LayoutCell) => [cell.id, `./layouts/${cell.id}/${cell.graph}:graph`]));
    const specs = { one: './graphs/one.ts:one', two: './graphs/two.ts:two', ...layouts };
    const files = Object.values(specs).map((spec) => path.resolve(project, spec.slice(0, spec.lastIndexOf(':'))));
    const compiled = await compileProjectModules(files);
    assert.ok('modules' in compiled, `compiled: ${JSON.stringify(compiled)}`);
    for (const set of setsOf(compiled.modules.values())) sets.add(set);
    const registry = await loadGraphs(specs, project, new MemorySaver(), { functions: 'plain' });
    const one = await answer(registry, 'one');
    const two = await answer(registry, 'two');
    assert.equal(one.instance, two.instance, 'shared.ts is one module for both graphs');
    assert.equal(two.later, true, 'a module imported while the graph runs: compiled, and sharing shared.ts');
    assert.equal(one.url, pathToFileURL(path.join(project, 'shared.ts')).href);
    assert.equal(one.dirname, project);
    assert.equal(one.here, pathToFileURL(path.join(project, 'graphs/one.ts')).href);
    assert.equal(one.file, path.join(project, 'graphs/one.ts'));
    assert.equal(one.factor, 6, 'the JSON module beside it, through the alias');
    assert.match(String(one.stack), /\.cache\/agentplane\/modules\/[0-9a-f]{16}\/.*shared\.ts\.mjs/, 'run from the compiled copy');
    for (const cell of cells) assert.deepEqual(await langGraphAnswer(registry, cell.id), { n: 6 }, cell.id);
    assert.equal(typescriptLoaderRegistered(), false, "tsx's hooks were never registered");
    const modules = compiledProjectModules() ?? {};
    assert.ok(modules[path.join(project, 'shared.ts')], 'what a run worker is handed names the modules imported, not only the graphs');
    assert.ok(modules[path.join(project, 'lib/twice.ts')], 'the alias compiled too');
  });

  it('a copy gone under a running server (its set pruned) is loaded through tsx from the source', async () => {
    const file = path.join(project, 'graphs/three.ts');
    write(project, { 'graphs/three.ts': 'export const three = async (): Promise<{ n: number }> => ({ n: 3 });\n' });
    const compiled = await compileProjectModules([file]);
    assert.ok('modules' in compiled, JSON.stringify(compiled));
    for (const set of setsOf(compiled.modules.values())) fs.rmSync(set, { recursive: true, force: true });
    const registry = await loadGraphs({ three: './graphs/three.ts:three' }, project, new MemorySaver(), { functions: 'plain' });
    assert.deepEqual(await answer(registry, 'three'), { n: 3 });
    assert.ok(typescriptLoaderRegistered(), 'through tsx');
  });

  it('a module of an installed package (the shipped examples), compiled again once its copies exist', async () => {
    const installed = path.join(dir, 'installed');
    write(installed, {
      'package.json': JSON.stringify({ name: 'installing-project', private: true }),
      'node_modules/shipped/package.json': JSON.stringify({ name: 'shipped', version: '1.0.0', type: 'module' }),
      'node_modules/shipped/examples/twice.ts': 'export const twice = (a: number): number => a * 2;\n',
      'node_modules/shipped/examples/graph.ts':
        "import { StateGraph } from '@langchain/langgraph';\nimport { twice } from './twice.ts';\nexport const answer = { builder: typeof StateGraph, four: twice(2) };\n",
    });
    const entry = path.join(installed, 'node_modules/shipped/examples/graph.ts');
    for (const round of [1, 2]) {
      const compiled = await compileProject([entry]);
      assert.ok('modules' in compiled, `round ${round}: ${JSON.stringify(compiled)}`);
      for (const set of setsOf(compiled.modules.values())) sets.add(set);
      const { answer } = (await import(`${compiled.modules.get(entry)}?round=${round}`)) as { answer: unknown };
      assert.deepEqual(answer, { builder: 'function', four: 4 }, `round ${round}`);
    }
  });

  it('sets unused for a day are removed by the next compile beside them; recent ones stay', async () => {
    const project = path.join(dir, 'pruned');
    write(project, { 'node_modules/.keep': '', 'package.json': JSON.stringify({ type: 'module' }), 'graph.ts': 'export const a: number = 1;\n' });
    const folder = path.join(project, 'node_modules/.cache/agentplane/modules');
    const old = path.join(folder, 'a'.repeat(16));
    const recent = path.join(folder, 'b'.repeat(16));
    write(old, { 'graph.ts.mjs': '' });
    write(recent, { 'graph.ts.mjs': '' });
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    fs.utimesSync(old, twoDaysAgo, twoDaysAgo);
    const compiled = await compileProject([path.join(project, 'graph.ts')]);
    assert.ok('modules' in compiled, JSON.stringify(compiled));
    // the pruning goes on after the compile has answered
    for (let waited = 0; fs.existsSync(old) && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(fs.existsSync(old), false, 'the set unused for two days is removed');
    assert.ok(fs.existsSync(recent), 'a set used a moment ago stays');
    assert.ok(fs.existsSync(fileURLToPath(compiled.modules.get(path.join(project, 'graph.ts'))!)), 'its own set stays');
  });

  it('a second compile of the same sources, from another working directory, writes nothing new and names the same copies', async () => {
    const files = [path.join(project, 'graphs/one.ts')];
    const first = await compileProject(files);
    // esbuild takes the working directory as it loads: another process, started elsewhere
    const script = `const { compileProject } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/shared/projectCompile.ts')).href)});
      const result = await compileProject(${JSON.stringify(files)});
      console.log(JSON.stringify({ modules: [...result.modules] }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.join(project, 'graphs'),
      encoding: 'utf8',
    });
    const second = { modules: new Map(JSON.parse(out).modules as [string, string][]) };
    assert.ok('modules' in first);
    for (const set of setsOf([...first.modules.values(), ...second.modules.values()])) sets.add(set);
    assert.deepEqual([...first.modules], [...second.modules]);
  });

  it("leaves no esbuild service running once compiled (issue 86: ~15 MB of a server's idle RSS)", async () => {
    const compiled = await compileProject([path.join(project, 'graphs/one.ts')]);
    assert.ok('modules' in compiled, JSON.stringify(compiled));
    for (const set of setsOf(compiled.modules.values())) sets.add(set);
    assert.deepEqual(await esbuildServicesLeft(), []);
  });
});

describe('what the compile cannot give as tsx would loads through tsx', () => {
  const project = path.join(dir, 'fallback');
  before(() =>
    write(project, {
      'package.json': JSON.stringify({ name: 'fallback-project', private: true, type: 'module' }),
      'requires.ts': "const x = require('./plain.js');\nexport default x;\n",
      'plain.js': 'export const a = 1;\n',
      'computed.ts': "const name = './plain.js';\nexport const load = () => import(name);\n",
      'resolves.ts': "export const at = import.meta.resolve('./plain.js');\n",
      'meta.ts': 'const meta = import.meta;\nexport const url = meta.url;\n',
      'broken.ts': 'export const a: number = ;\n',
      'cjs/package.json': JSON.stringify({ name: 'cjs-project', private: true }),
      'cjs/graph.ts': 'export const a: number = 1;\n',
      'cjs/graph.cts': 'export const a: number = 1;\n',
      'importsCjs.ts': "export { a } from './cjs/graph.ts';\n",
      'data.json': '{"a": 1}',
      'node_modules/with-data/package.json': JSON.stringify({ name: 'with-data', version: '1.0.0', exports: { './data.json': './data.json' } }),
      'node_modules/with-data/data.json': '{"a": 1}',
      'packageJson.ts': "import data from 'with-data/data.json';\nexport const a: number = data.a;\n",
      'jsonBare.ts': "import data from './data.json';\nexport const a: number = data.a;\n",
      'cjs/plain.js': 'exports.a = 1;\n',
      'importsCjsJs.ts': "export { a } from './cjs/plain.js';\n",
    }),
  );

  for (const [file, reason] of [
    ['requires.ts', /require-call of \.\/plain\.js/],
    ['computed.ts', /computed/],
    ['resolves.ts', /import\.meta beyond/],
    ['meta.ts', /import\.meta beyond/],
    ['broken.ts', /esbuild: .*broken\.ts/],
    ['cjs/graph.ts', /graph\.ts runs as CommonJS/],
    ['cjs/graph.cts', /graph\.cts runs as CommonJS/],
    ['importsCjs.ts', /cjs\/graph\.ts runs as CommonJS/],
    ['jsonBare.ts', /JSON without `with \{ type: 'json' \}`/],
    ['packageJson.ts', /with-data\/data\.json: JSON without/],
    ['importsCjsJs.ts', /JavaScript that tsx may run as CommonJS/],
  ] as const) {
    it(`${file}: ${reason.source}`, async () => {
      const result = await compileProject([path.join(project, file)]);
      assert.ok('fallback' in result, `compiled: ${JSON.stringify(result)}`);
      assert.match(result.fallback, reason);
    });
  }

  it('a module with no node_modules folder above it', async (t) => {
    const outside = tempDir('agentplane-compile-');
    try {
      if (fs.existsSync(path.join(path.parse(outside).root, 'node_modules')) || fs.existsSync(path.join(path.dirname(outside), 'node_modules')))
        return t.skip('the temporary directory has a node_modules folder above it');
      write(outside, { 'package.json': JSON.stringify({ type: 'module' }), 'alone.ts': 'export const a: number = 1;\n' });
      const result = await compileProject([path.join(outside, 'alone.ts')]);
      assert.ok('fallback' in result && /no node_modules folder/.test(result.fallback), JSON.stringify(result));
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('the layouts tsx runs as CommonJS are served through tsx, each answering as before', async () => {
    const layouts = path.join(project, 'layouts');
    const cells = layoutCells().filter((cell) => ['none_ts_ts', 'none_ts_bare', 'commonjs_ts_js', 'none_cts'].includes(cell.id));
    writeLayoutProject(layouts, cells);
    const specs = Object.fromEntries(cells.map((cell) => [cell.id, `./${cell.id}/${cell.graph}:graph`]));
    const compiled = await compileProjectModules(cells.map((cell) => path.join(layouts, cell.id, cell.graph)));
    assert.ok('fallback' in compiled && /runs as CommonJS under tsx/.test(compiled.fallback), JSON.stringify(compiled));
    const registry = await loadGraphs(specs, layouts, new MemorySaver());
    for (const cell of cells) assert.deepEqual(await langGraphAnswer(registry, cell.id), { n: 6 }, cell.id);
    assert.ok(typescriptLoaderRegistered(), 'through tsx');
    assert.equal(compiledProjectModules(), undefined, 'a run worker is handed nothing to import: it loads through tsx too');
  });
});
