// The test runner (scripts/run-tests.ts) run as a command of its own, for the tests of the
// runner: run-tests.test.ts (npm test's) and run-tests.postgres.e2e.test.ts (the one that
// starts a PostgreSQL server).
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the runner over `folder` (or several) with `flags` and `env`; its exit status, summary counts and output. */
export async function runRunner(
  env: Record<string, string>,
  flags: string[],
  folder: string | string[],
  mustPass = true,
): Promise<{ status: number | null; tests: number; pass: number; output: string }> {
  // the runner of a run of its own, not a part of this one's (node:test tells them apart by NODE_TEST_CONTEXT)
  const { NODE_TEST_CONTEXT: _ours, ...outside } = process.env;
  // tsx's hooks in the runner's own process: tsx's command line would start a second process to relay to (~0.5 CPU-s a run)
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/run-tests.ts', ...flags, ...[folder].flat().map((one) => path.relative(ROOT, one))], {
    cwd: ROOT,
    env: { ...outside, NODE_OPTIONS: '', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (mustPass) assert.equal(status, 0, output);
  const count = (name: string) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1]);
  return { status, tests: count('tests'), pass: count('pass'), output };
}
