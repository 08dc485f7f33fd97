// Runs test files again in a child test run with another environment (through a Prism proxy,
// with graphs on the request loop...), for a test that checks the same suites pass that way.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from './server.ts';
import { PRELOAD } from './preload.ts';

export interface ChildTestRun {
  status: number | null;
  /** TAP, with its `# pass N` / `# fail N` summary. */
  stdout: string;
  /** stdout and stderr, for the failure message. */
  output: string;
  passed: number;
}

/** `node --test` over these files (paths from the repository root), only the tests `pattern` names if given. */
export function runTestFiles(files: string[], env: Record<string, string>, pattern?: string): Promise<ChildTestRun> {
  // without NODE_TEST_CONTEXT the child reports as a top-level run (TAP on stdout)
  const { NODE_TEST_CONTEXT: _inherited, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    [
      '--import',
      PRELOAD,
      '--test',
      '--test-reporter=tap',
      '--test-concurrency=1',
      ...(pattern ? [`--test-name-pattern=${pattern}`] : []),
      ...files.map((f) => path.join(ROOT, f)),
    ],
    {
      cwd: ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let output = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    output += d;
  });
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    child.once('close', (status) => resolve({ status, stdout, output, passed: Number(/^# pass (\d+)$/m.exec(stdout)?.[1] ?? 0) }));
  });
}
