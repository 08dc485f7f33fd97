// Configuration is read where the application is assembled (src/compose, src/runtime/config.ts
// and the adapters that turn the environment into settings), never by a rule or a handler:
// the domain and the handlers are given what they need, so a test hands them any setting
// without touching the process (issue 88).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUARDED = ['src/domain', 'src/handlers'];

/** `process.env`, `process['env']` or `{ env } = process`, comments left out. */
function readsEnvironment(source: string): boolean {
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  return /\bprocess\s*(\?\.|\.)\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|\{[^{}]*\benv\b[^{}]*\}\s*=\s*(globalThis\s*\.\s*)?process\b/.test(code);
}

function sourcesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.[cm]?[jt]s$/.test(file))
    .map((file) => path.posix.join(dir, file.split(path.sep).join('/')));
}

test('the rule sees each way of reading the environment, and not a mention in a comment', () => {
  for (const source of ['const url = process.env.URL;', "const e = process['env'];", 'const { env } = process;', 'process?.env']) {
    assert.ok(readsEnvironment(source), source);
  }
  for (const source of ['// read from process.env by compose', '/* process.env */ const x = 1;', 'const environment = options.env;']) {
    assert.ok(!readsEnvironment(source), source);
  }
});

test('no file of the domain or the handlers reads the environment: configuration is passed in', () => {
  const files = GUARDED.flatMap(sourcesUnder);
  assert.ok(files.length > 200, `files found: ${files.length}`);
  const reading = files.filter((file) => readsEnvironment(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  assert.deepEqual(reading, [], 'read the setting in src/compose (or runtime/config.ts) and hand it in');
});
