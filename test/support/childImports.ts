// How a child process a test starts loads a module of the repository: its compiled copy when the
// run has one (scripts/run-tests.ts compiles src/ for npm test: AGENTPLANE_TEST_COMPILED), by
// plain node; else the TypeScript through tsx, as when the file is run on its own. Through tsx
// such a child cost ~1.2 CPU-s before its first line, compiled ~0.3 (a child of
// test/runtime/logging/logOutput.test.ts, which starts six); the compiled copy is what dist/ runs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COMPILED_TESTS_ENV } from './compiledGraphs.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `source` (from the repository's root, `src/....ts`) as a child imports it: the URL, and the node flags it needs before its script. */
export function childImport(source: string): { url: string; flags: string[] } {
  const compiled = process.env[COMPILED_TESTS_ENV];
  const copy = compiled && path.join(compiled, source.replace(/\.ts$/, '.js'));
  if (copy && fs.existsSync(copy)) return { url: pathToFileURL(copy).href, flags: [] };
  return { url: pathToFileURL(path.join(ROOT, source)).href, flags: ['--import', 'tsx'] };
}

/**
 * The node arguments before the CLI's own (`agentplane serve ...`) for a child a test starts:
 * the run's compiled copy of src/cli/main.ts by plain node when it has one (what dist/ runs,
 * a project's TypeScript graphs registering tsx as they load), else bin/agentplane.js as a user
 * in a clone starts it. Through bin/ from the sources a server cost ~1 CPU-s more to start.
 */
export function cliEntry(): string[] {
  const main = childImport('src/cli/main.ts');
  return main.flags.length ? [path.join(ROOT, 'bin/agentplane.js')] : [fileURLToPath(main.url)];
}
