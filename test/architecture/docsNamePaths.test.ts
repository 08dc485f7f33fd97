// A path the README or a page of docs/ names in backticks (`src/…`, `test/…`, `scripts/…`)
// is where a reader will look, so it must exist. Files move (the mirror rounds of issue 66
// moved 145 tests and the CLI) and prose that names the old place sends readers nowhere:
// docs/scale-out.md kept naming src/runtime/store/pgTables.ts after it moved to adapters/.
// A name with a placeholder (`src/<p>.ts`, `src/domain/…`) or a glob describes a pattern and is left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOP = ['src', 'test', 'scripts', 'docs', 'spec', 'config', 'bin', 'ui', 'generated'];
const NAMED = new RegExp('`((?:' + TOP.join('|') + ')/[^`\\s]+)`', 'g');

function pages(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

test('every repository path the README and docs/ name exists', () => {
  const missing: string[] = [];
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    for (const [, named] of text.matchAll(NAMED)) {
      const p = named!.replace(/[:#].*$/, '');
      if (/[<>*{}…]/.test(p)) continue;
      if (!fs.existsSync(path.join(ROOT, p))) missing.push(`${page}: ${p}`);
    }
  }
  assert.deepEqual(missing, [], `these paths are named but do not exist:\n  ${missing.join('\n  ')}`);
});
