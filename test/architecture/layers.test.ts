// The layers of docs/architecture.md, checked on the import graph read from the sources
// (type-only and dynamic imports included; ./importGraph.ts): no cycle anywhere in the repository's code (the
// server, its tests, the bench and build scripts, the dashboard, the examples), the domain imports no runtime, backend or composition, the runtime no domain,
// and only the composition root asks which backend it has. The domain touches no file, process or
// socket; every deploy target lives in adapters/deploy-targets/<target>/, the composition root
// alone makes the revision engine, and image builds do not reach back into the targets. The run
// engine is made in one place and called directly: no class in front of it passes its methods on.
// No domain service holds the store's generic Collection<T>: each takes its aggregate's repository
// port (the files still taking one are a shrinking list, each with why). The runtime and the
// agent domain keep at most 12 files at their top, the rest in rooms.
// A port's methods are all required: every implementation answers each (no method one store
// has and the domain asks whether it is there), and nothing but the stores implements the run claims.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { readImportGraph } from './importGraph.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Every folder of the repository that holds code (generated/ imports nothing of ours). */
const CODE = ['src', 'test', 'scripts', 'examples', 'bin', 'ui/src'];
let graph: Record<string, string[]>;
let cycles: string[][];

before(() => {
  ({ graph, cycles } = readImportGraph(ROOT, CODE));
});

/** `from → to` for every import from a module under `from` of a module under one of `forbidden`. */
function importsBetween(from: string, forbidden: string[]): string[] {
  return Object.entries(graph)
    .filter(([file]) => file.startsWith(`${from}/`))
    .flatMap(([file, deps]) => deps.filter((dep) => forbidden.some((dir) => dep.startsWith(`${dir}/`))).map((dep) => `${file} → ${dep}`));
}

test('the import graph covers the sources (a check over nothing would pass)', () => {
  for (const file of [
    'src/cli/main.ts',
    'src/compose/backend.ts',
    'src/domain/ports/store.ts',
    'src/adapters/postgres/pgStore.ts',
    'test/conformance/lib/suite.ts',
    'scripts/bench/run.ts',
    'bin/agentplane.js',
  ]) {
    assert.ok(graph[file], `${file} is not in the graph`);
  }
  assert.ok(graph['src/compose/backend.ts'].includes('src/adapters/postgres/pgStore.ts'));
});

test('no import cycle anywhere: the server, the tests, the bench and build scripts, the dashboard, the examples', () => {
  assert.deepEqual(
    cycles.map((cycle) => cycle.join(' → ')),
    [],
  );
});

test('the domain imports no runtime, adapter, handler or composition root', () => {
  assert.deepEqual(importsBetween('src/domain', ['src/runtime', 'src/adapters', 'src/handlers', 'src/compose']), []);
});

/** Modules that touch files, start processes or threads, open connections, drive Kubernetes, bundle, talk SQL or export telemetry: adapters' business. */
const MACHINERY =
  /^(node:)?(fs|fs\/promises|child_process|worker_threads|cluster|net|http|https|http2|dgram|dns|dns\/promises|tls)$|^(pg|pg-.*|esbuild|@kubernetes\/.*|undici|ws|@opentelemetry\/exporter-.*)$/;

test('the domain imports no file, process, thread, network, Kubernetes, esbuild, pg or exporter module, and calls no fetch', () => {
  const domainFiles = Object.keys(graph).filter((file) => file.startsWith('src/domain/'));
  assert.ok(domainFiles.length > 100, `domain files found: ${domainFiles.length}`);
  const offenders = domainFiles.flatMap((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    // static, dynamic and type-only imports, re-exports and require()s of any name
    const specifiers = [...text.matchAll(/(?:\bfrom|\bimport|require\w*)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
    const calls = /(^|[^.\w])fetch\(/m.test(text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')) ? ['fetch()'] : [];
    return [...specifiers.filter((s) => MACHINERY.test(s)), ...calls].map((s) => `${file} → ${s}`);
  });
  assert.deepEqual(offenders, []);
});

/**
 * Whether a source names the store's generic `Collection<T>` (comments left out): a domain
 * service takes a repository port that speaks its aggregate (issue 66 point 3), and only the
 * implementations in src/adapters/embedded/ and src/adapters/postgres/ hold collections.
 */
const namesCollection = (source: string) => /\bCollection</.test(source.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''));

/**
 * The domain files that still name Collection<T>, each with why: a list that only shrinks. A
 * file not on it that names one fails the rule below, and so does a file on it that no longer
 * does (then it leaves the list).
 */
const STILL_TAKING_COLLECTIONS: Record<string, string> = {
  'src/domain/ports/store.ts': 'defines Collection<T> for the storage adapters',
};

test('no domain file names Collection<T> but those still on the shrinking list: each aggregate has its repository port', () => {
  const domainFiles = sources().filter((file) => file.startsWith('src/domain/'));
  assert.ok(domainFiles.length > 100, `domain files found: ${domainFiles.length}`);
  const naming = domainFiles.filter((file) => namesCollection(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  assert.deepEqual(
    naming.filter((file) => !(file in STILL_TAKING_COLLECTIONS)),
    [],
    'a domain service takes its repository port (src/domain/ports/), never a Collection<T>',
  );
  assert.deepEqual(
    Object.keys(STILL_TAKING_COLLECTIONS).filter((file) => !naming.includes(file)),
    [],
    'no longer naming Collection<T>: take it off STILL_TAKING_COLLECTIONS',
  );
});

test('the Collection<T> check finds one in a service and not in a comment', () => {
  assert.equal(namesCollection('class CronService {\n  private readonly crons: Collection<CronRecord>;\n}'), true);
  assert.equal(
    namesCollection("import type { Collection, Store } from '../ports/store.ts';\nconst c: Collection<{ id: string }> = store.collection('x');"),
    true,
  );
  assert.equal(namesCollection('// takes a repository, never a Collection<T>\nclass CronService {}'), false);
});

test('handlers import no adapter or composition root', () => {
  assert.deepEqual(importsBetween('src/handlers', ['src/adapters', 'src/compose']), []);
});

test('the runtime imports no domain, adapter, handler or composition root', () => {
  assert.deepEqual(importsBetween('src/runtime', ['src/domain', 'src/adapters', 'src/handlers', 'src/compose']), []);
});

test('src/shared, which every layer may import, imports no layer', () => {
  assert.deepEqual(importsBetween('src/shared', ['src/runtime', 'src/domain', 'src/adapters', 'src/handlers', 'src/compose']), []);
});

test("no instanceof of a storage adapter class (embedded, PostgreSQL or the runs' storage) outside src/compose", () => {
  const files = Object.keys(graph).filter((file) => file.startsWith('src/'));
  const backendClasses = files
    .filter((file) => ['src/adapters/embedded/', 'src/adapters/postgres/', 'src/adapters/run-storage/'].some((dir) => file.startsWith(dir)))
    .flatMap((file) => [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/export class (\w+)/g)].map((m) => m[1]));
  assert.ok(
    ['PgStore', 'LocalCoordination', 'InMemoryRunEventLog'].every((name) => backendClasses.includes(name)),
    `backend classes found: ${backendClasses.join(', ')}`,
  );
  const instanceOf = new RegExp(`instanceof\\s+(${backendClasses.join('|')})\\b`);
  const offenders = files
    .filter((file) => !file.startsWith('src/compose/'))
    .flatMap((file) =>
      fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ file, line: i + 1, text: line })),
    )
    .filter(({ text }) => instanceOf.test(text))
    .map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`);
  assert.deepEqual(offenders, []);
});

/** Every TypeScript file under `src/` the import graph holds. */
const sources = () => Object.keys(graph).filter((file) => file.startsWith('src/') && /\.tsx?$/.test(file));

test('every deploy target and every cluster is under src/adapters/deploy-targets/<target>/', () => {
  const declares = /\bimplements\s+[\w\s,]*\b(DeployTarget|Cluster)\b|:\s*(DeployTarget|Cluster)\s*=\s*\{/;
  const found = sources().filter((file) => declares.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  // a check that finds none would pass over nothing: the four targets and two clusters are found
  assert.ok(found.length >= 6, `targets and clusters found: ${found.join(', ')}`);
  assert.deepEqual(
    found.filter((file) => !/^src\/adapters\/deploy-targets\/[^/]+\//.test(file)),
    [],
  );
});

test('the revision engine is made in src/compose/areas/controlPlaneServices.ts only (the engine drives; a target does)', () => {
  const makers = sources().filter((file) => /\bnew RevisionEngine\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  assert.deepEqual(makers, ['src/compose/areas/controlPlaneServices.ts']);
});

test('no decorator wraps the revision engine: leadership and ownership are its options (issue 66)', () => {
  const text = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
  // declared a driver: by name, or as an object typed as one
  const declares = /\bimplements\s+[\w\s,]*\bRevisionDriver\b|(:|satisfies)\s*RevisionDriver\s*=?\s*\{|\bas\s+RevisionDriver\b/;
  assert.deepEqual(
    sources().filter((file) => declares.test(text(file))),
    ['src/domain/control-plane/revisionEngine.ts'],
  );
  // a wrapper by shape: it holds a driver (or a maker of one) and answers submit and retire itself
  const holdsDriver = /(:|=>)\s*RevisionDriver\b/;
  const answers = (source: string) => /^\s*(async\s+)?submit\s*\(/m.test(source) && /^\s*(async\s+)?retire\s*\(/m.test(source);
  assert.deepEqual(
    sources().filter((file) => holdsDriver.test(text(file)) && answers(text(file))),
    [],
  );
});

test('image builds import no deploy target (deploy targets use images, never the reverse)', () => {
  assert.deepEqual(importsBetween('src/adapters/images', ['src/adapters/deploy-targets']), []);
});

/** The methods of `source` that only pass their call on to the same method of a field (`m(a) { return this.x.m(a); }`). */
function forwardedMethods(source: string): string[] {
  const forward = /^\s*(?:async\s+)?(\w+)\s*\([^)]*\)[^{;]*\{\s*(?:return\s+)?(?:await\s+)?this\.\w+\.\1\([^)]*\);?\s*\}/gm;
  return [...source.matchAll(forward)].map((m) => m[1]);
}

test('the run engine is called directly: no RunLifecycle, no class in front of it passing its methods on (issue 66)', () => {
  const text = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
  assert.deepEqual(
    sources().filter((file) => path.basename(file) === 'runLifecycle.ts' || /\bRunLifecycle\b/.test(text(file))),
    [],
  );
  const makers = sources().filter((file) => /\bnew RunEngine\b/.test(text(file)));
  assert.equal(makers.length, 1, `the run engine is made in one place, found in: ${makers.join(', ')}`);
  // a pass-through by shape: it holds a run engine and answers two or more of its methods by calling them
  const passesOn = sources()
    .filter((file) => /\bRunEngine\b/.test(text(file)) && file !== 'src/domain/agent/runs/runEngine.ts')
    .map((file) => ({ file, forwarded: forwardedMethods(text(file)) }))
    .filter(({ forwarded }) => forwarded.length >= 2);
  assert.deepEqual(passesOn, []);
});

test('the pass-through check recognises the class the run wing folded away', () => {
  const passThrough = `class RunLifecycle {
  executing(): number {
    return this.engine.executing();
  }
  async inflight(threadId: string): Promise<string[]> {
    return this.engine.inflight(threadId);
  }
  start(): void {
    this.engine.start();
  }
  async enqueue(threadId: string): Promise<void> {
    await this.deps.store.write([]);
  }
}`;
  assert.deepEqual(forwardedMethods(passThrough), ['executing', 'inflight', 'start']);
});

/**
 * `Interface.method` for each optional method of an interface in `source` (`m?(…)` or a
 * property `m?: (…) => …`): a port method one implementation has and the domain asks whether
 * it is there, a store's shortcut in the domain's code. An options interface's (`…Options`)
 * function is the caller's to give (a list's `filter`), not the port's to answer.
 */
function optionalMethods(source: string): string[] {
  const file = ts.createSourceFile('port.ts', source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && !node.name.text.endsWith('Options'))
      for (const member of node.members) {
        const optional = member.questionToken !== undefined;
        const method = ts.isMethodSignature(member) || (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type));
        if (optional && method) found.push(`${node.name.text}.${member.name!.getText(file)}`);
      }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * Optional port methods left, each with why: none now (the last, RunClaims.enqueue, is answered
 * by both stores). A new one fails the rule unless it is listed here with its reason (issue 66, item 4).
 */
const OPTIONAL_PORT_METHODS_LEFT: Record<string, string> = {};

test('no port in src/domain/ports/ has an optional method: every store answers each (issue 66)', () => {
  const ports = sources().filter((file) => file.startsWith('src/domain/ports/'));
  assert.ok(ports.length > 20, `ports found: ${ports.length}`);
  const found = ports.flatMap((file) => optionalMethods(fs.readFileSync(path.join(ROOT, file), 'utf8')).map((method) => ({ method, file })));
  assert.deepEqual(
    found.filter(({ method, file }) => OPTIONAL_PORT_METHODS_LEFT[method] !== file).map(({ method, file }) => `${file}: ${method}`),
    [],
  );
  // a line left here after its method went would excuse the next one of that name
  assert.deepEqual(
    Object.keys(OPTIONAL_PORT_METHODS_LEFT).filter((method) => !found.some((f) => f.method === method)),
    [],
  );
});

test('the optional-method check finds a method and a function property marked optional, and not an option, a field or a comment', () => {
  const port = `// nextOnThread?(threadId: string): a comment names it
export interface RunClaims {
  readonly leased: boolean;
  claim(room: number): Promise<void>;
  nextOnThread?(threadId: string): Promise<string | null>;
  firstReads?: (threadId: string) => Promise<object>;
  retryMs?: number;
}
export interface ListOptions<T> {
  filter?: (value: T) => boolean;
}
export type NotAPort = { shortcut?(): void };`;
  assert.deepEqual(optionalMethods(port), ['RunClaims.nextOnThread', 'RunClaims.firstReads']);
});

test('the runs are served by three ports, the run store, its claims and its event log, implemented by adapters only (issue 88)', () => {
  const text = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
  const runPorts = sources().filter((file) => /^src\/domain\/ports\/run[A-Z]\w*\.ts$/.test(file));
  assert.deepEqual(runPorts.sort(), ['src/domain/ports/runClaims.ts', 'src/domain/ports/runEventLog.ts', 'src/domain/ports/runStore.ts']);
  const implementsRunPort = /\bimplements\s+[\w\s,]*\b(RunStore|RunClaims|RunEventLog)\b/;
  const implementers = sources().filter((file) => implementsRunPort.test(text(file)));
  assert.ok(implementers.length >= 5, `implementations found: ${implementers.join(', ')}`);
  // an event log or a store kept in the domain (the event log was domain/agent/broker.ts) is an adapter's work
  assert.deepEqual(
    implementers.filter((file) => !file.startsWith('src/adapters/')),
    [],
  );
});

test('only the stores implement the run claims: nothing wraps them, and runs-ahead decorates the executor, not the engine (issue 66)', () => {
  const text = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
  const implementers = sources().filter((file) => /\bimplements\s+[\w\s,]*\bRunClaims\b|(:|satisfies)\s*RunClaims\s*=?\s*\{/.test(text(file)));
  assert.deepEqual(implementers.sort(), ['src/adapters/run-storage/inProcessRunClaims.ts', 'src/adapters/run-storage/pgRunClaims.ts']);
  // the run a worker may start ahead is asked of the embedded claims by the composition root, never of the domain
  assert.deepEqual(
    sources().filter((file) => file.startsWith('src/domain/') && /\bnextOnThread\b/.test(text(file))),
    [],
  );
});

// The runtime and the agent domain are houses of rooms (issue 88: they had grown to 56 and 46
// files side by side): a module goes into the room of what it does (docs/architecture.md, "The
// rooms"), and the top keeps what the whole folder shares.
const ROOMED = ['src/runtime', 'src/domain/agent'];
const MOST_AT_TOP = 12;

test(`src/runtime and src/domain/agent keep at most ${MOST_AT_TOP} files at their top: a new module goes into a room`, () => {
  const crowded = ROOMED.map((dir) => ({ dir, files: fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isFile()) }))
    .filter(({ files }) => files.length > MOST_AT_TOP)
    .map(({ dir, files }) => `${dir}: ${files.length} files (${files.map((e) => e.name).join(', ')})`);
  assert.deepEqual(crowded, [], 'put the new module into the room of what it does (docs/architecture.md)');
});
