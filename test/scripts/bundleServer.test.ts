// The server's bundle (scripts/bundleServer.ts) on a small dist/ of its own: each module's
// `import.meta.url` still names its own file in dist/src (worker entries and files read beside
// a module resolve as unbundled), a string that names `import.meta.url` is left alone (the
// project compiler's esbuild `define` key: rewritten, every project loaded through tsx), an
// `import()` stays lazy, and inputs.json says which files each output holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleServer } from '../../scripts/bundleServer.ts';
import { tempDir } from '../support/tempDirs.ts';

test('the bundle keeps each module’s import.meta.url, strings naming it, and lazy imports', async () => {
  const dist = tempDir();
  const write = (file: string, code: string) => {
    fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
    fs.writeFileSync(path.join(dist, file), code);
  };
  write(
    'src/cli/main.js',
    [
      "import { workerEntry, defineKeys } from '../adapters/pool.js';",
      'export const here = import.meta.url;',
      'export { workerEntry, defineKeys };',
      "export const later = () => import('../handlers/late.js');",
    ].join('\n'),
  );
  write(
    'src/adapters/pool.js',
    [
      "export const workerEntry = new URL('./worker.js', import.meta.url).href;",
      'export const defineKeys = Object.keys({ \'import.meta.url\': 1, "import.meta.dirname": 2 });',
    ].join('\n'),
  );
  write('src/handlers/late.js', 'globalThis.lateLoaded = true; export const late = import.meta.url;');
  await bundleServer(dist);

  const bundled = (await import(pathToFileURL(path.join(dist, 'bundle/main.js')).href)) as {
    here: string;
    workerEntry: string;
    defineKeys: string[];
    later: () => Promise<{ late: string }>;
  };
  const url = (file: string) => pathToFileURL(path.join(dist, file)).href;
  assert.equal(bundled.here, url('src/cli/main.js'));
  assert.equal(bundled.workerEntry, url('src/adapters/worker.js'));
  assert.deepEqual(bundled.defineKeys, ['import.meta.url', 'import.meta.dirname']);
  assert.equal((globalThis as { lateLoaded?: boolean }).lateLoaded, undefined, 'an import() is not loaded with the entry');
  assert.equal((await bundled.later()).late, url('src/handlers/late.js'));

  const inputs = JSON.parse(fs.readFileSync(path.join(dist, 'bundle/inputs.json'), 'utf8')) as Record<string, string[]>;
  assert.deepEqual(inputs['main.js'].sort(), ['src/adapters/pool.js', 'src/cli/main.js']);
  const late = Object.entries(inputs).find(([, held]) => held.includes('src/handlers/late.js'));
  assert.ok(late && late[0] !== 'main.js', 'the lazy module is an output of its own');
});
