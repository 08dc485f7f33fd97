// A folder that lives as long as its process (src/shared/processTempDir.ts): what a server
// without a data directory, or a test, keeps on disk is removed when the process exits, also
// when it fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempDir } from '../support/tempDirs.ts';
import { childImport } from '../support/childImports.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The module as the children load it (compiled in npm test). */
const own = childImport('src/shared/processTempDir.ts');

/** Runs `script` (with processTempDir.ts as `own`, node:fs as `fs`) in a process of its own under TMPDIR `tmp`; the lines it printed. */
function inProcess(tmp: string, script: string): { status: number | null; lines: string[]; output: string } {
  const child = spawnSync(
    process.execPath,
    [...own.flags, '-e', `Promise.all([import(${JSON.stringify(own.url)}), import('node:fs')]).then(([own, fs]) => { ${script} })`],
    {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
      encoding: 'utf8',
    },
  );
  return { status: child.status, lines: child.stdout.trim().split('\n').filter(Boolean), output: child.stdout + child.stderr };
}

test('the folders are removed when the process exits, whether it ends well or with an error, their files with them', () => {
  const tmp = tempDir('process-temp-');
  const make = `const dir = own.processTempDir('own-'); fs.writeFileSync(dir + '/file', 'x'); console.log(dir);`;
  for (const ending of ['', `throw new Error('a test failed');`, 'process.exit(3);']) {
    const { status, lines, output } = inProcess(
      tmp,
      `${make} ${ending}`.replace('require', `(await import('node:module')).createRequire(import.meta.url)`).replace('then((own) =>', 'then(async (own) =>'),
    );
    assert.equal(lines.length, 1, output);
    assert.ok(lines[0]!.startsWith(path.join(tmp, 'own-')), output);
    assert.equal(fs.existsSync(lines[0]!), false, `${lines[0]} outlived its process (${ending || 'a normal end'}, exit ${status})`);
  }
  // tsx's cache of the child's compiled files aside
  assert.deepEqual(
    fs.readdirSync(tmp).filter((name) => !name.startsWith('tsx-')),
    [],
  );
});

test('a folder handed over is removed at exit if it is still there, and one already gone is no error', () => {
  const tmp = tempDir('process-temp-');
  const kept = path.join(tmp, 'handed-over');
  fs.mkdirSync(kept);
  const { status, output } = inProcess(tmp, `own.removeAtExit(${JSON.stringify(kept)}); own.removeAtExit(${JSON.stringify(path.join(tmp, 'never-made'))});`);
  assert.equal(status, 0, output);
  assert.equal(fs.existsSync(kept), false);
});
