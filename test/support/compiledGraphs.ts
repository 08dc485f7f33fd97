// A test server's TypeScript graphs, auth module (auth.path) and embedder (store.index.embed)
// served from the test run's compiled copies (scripts/compileTests.ts), for the tests that ask
// (TestServerOptions.compiledModules). A TypeScript module makes the process that loads it
// register tsx's loader, and then every module it loads after goes through the loader's thread:
// a run worker that loads one and then LangGraph costs ~2 CPU-s against ~0.55 for a JavaScript
// one (3 workers, alternated, twice), and the worker tests start a dozen. A test process that
// loads a TypeScript auth module or embedder so pays it for every file after in its group.
// Their subject is where a graph runs or what the auth and the store answer, not how
// TypeScript loads (the end-to-end and release suites load TypeScript projects as users do).
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectConfig } from '../../src/runtime/config.ts';

/** The compiled copies' folder (the repository's layout, `.js` for `.ts`), set by the runner when the tests run compiled. */
export const COMPILED_TESTS_ENV = 'AGENTPLANE_TEST_COMPILED';
/** The folders of project modules (graphs, auth) the runner compiles beside the tests (none of them is imported by a test). */
export const GRAPH_FOLDERS = [
  'examples/graphs',
  'test/fixtures/graphs',
  'test/fixtures/agent-server',
  'test/fixtures/auth',
  'test/fixtures/differential-project/src',
];

/** `project` with each TypeScript graph, auth module and embedder (`file.ts:export`, from `root`) its compiled copy's, where the run has one; else as it was. */
export function withCompiledModules(project: ProjectConfig, root: string): ProjectConfig {
  const compiled = process.env[COMPILED_TESTS_ENV];
  if (!compiled) return project;
  const copyOf = (spec: string): string => {
    const at = /^(.*\.ts):([^:]+)$/.exec(spec);
    if (!at) return spec;
    const copy = path.join(compiled, path.relative(root, path.resolve(root, at[1]))).replace(/\.ts$/, '.js');
    return fs.existsSync(copy) ? `${copy}:${at[2]}` : spec;
  };
  const graphs =
    project.graphs &&
    Object.fromEntries(
      Object.entries(project.graphs).map(([id, entry]) => [id, typeof entry === 'string' ? copyOf(entry) : { ...entry, path: copyOf(entry.path) }]),
    );
  return {
    ...project,
    ...(graphs && { graphs }),
    ...(project.auth?.path && { auth: { ...project.auth, path: copyOf(project.auth.path) } }),
    ...(project.store?.index?.embed && { store: { ...project.store, index: { ...project.store.index, embed: copyOf(project.store.index.embed) } } }),
  };
}
