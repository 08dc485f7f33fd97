// The import graph the layer test reads: every kind of import is an edge (a rule checked on a
// graph that misses one would pass over it), and a circle of imports is found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readImportGraph } from './importGraph.ts';
import { tempDir } from '../support/tempDirs.ts';

function project(files: Record<string, string>): string {
  const root = tempDir('import-graph-');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('static, type-only, dynamic, re-exported and required imports are edges; packages are not', () => {
  const root = project({
    'src/a.ts': [
      "import { b } from './b.ts';",
      "import type { C } from './c.ts';",
      "export { d } from './d.ts';",
      "const e = await import('./e.ts');",
      "const f = require('./f.cjs');",
      "import fs from 'node:fs';",
      "import { z } from 'zod';",
    ].join('\n'),
    'src/b.ts': 'export const b = 1;',
    'src/c.ts': 'export interface C {}',
    'src/d.ts': 'export const d = 1;',
    'src/e.ts': 'export const e = 1;',
    'src/f.cjs': 'module.exports = 1;',
  });
  const { graph, cycles } = readImportGraph(root, ['src']);
  assert.deepEqual([...graph['src/a.ts']].sort(), ['src/b.ts', 'src/c.ts', 'src/d.ts', 'src/e.ts', 'src/f.cjs']);
  assert.deepEqual(cycles, []);
});

test('a circle of imports is a cycle, through a type-only import too, and so is a file importing itself', () => {
  const root = project({
    'src/a.ts': "import { b } from './b.ts';",
    'src/b.ts': "import type { C } from '../lib/c.ts';",
    'lib/c.ts': "import { a } from '../src/a.ts';",
    'lib/self.ts': "export * from './self.ts';",
    'lib/alone.ts': "import { a } from '../src/a.ts';",
  });
  const { cycles } = readImportGraph(root, ['src', 'lib']);
  assert.deepEqual(cycles.map((cycle) => [...cycle].sort()).sort(), [['lib/c.ts', 'src/a.ts', 'src/b.ts'], ['lib/self.ts']]);
});

test('an import of a declaration file is the JavaScript module beside it', () => {
  const root = project({
    'bin/entry.js': "import { x } from './sources.js';",
    'bin/sources.js': 'export const x = 1;',
    'bin/sources.d.ts': 'export declare const x: number;',
  });
  assert.deepEqual(readImportGraph(root, ['bin']).graph['bin/entry.js'], ['bin/sources.js']);
});
