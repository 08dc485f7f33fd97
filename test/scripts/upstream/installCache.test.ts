// The caches of npm installs made on demand (scripts/upstream/installCache.ts): what a killed
// process left (a staging folder, a project copy) goes with the next use, and so does an install
// no run has used for a week; what a live process holds stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { UNUSED_INSTALL_MS, markUsed, ownFolderIn, removeOrphans, removeUnused, stagingFor } from '../../../scripts/upstream/installCache.ts';
import { tempDir } from '../../support/tempDirs.ts';

const MARKER = '.complete.json';
const gone = () => spawnSync(process.execPath, ['-e', '']).pid!;

/** An install in `cache` with its marker last used `daysAgo`. */
function install(cache: string, name: string, daysAgo: number): string {
  const dir = path.join(cache, name);
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(dir, MARKER), '{}');
  const when = new Date(Date.now() - daysAgo * 24 * 3600_000);
  fs.utimesSync(path.join(dir, MARKER), when, when);
  return dir;
}

test('a staging folder or a copy whose process is gone is removed; those of live processes are kept', () => {
  const cache = tempDir('install-cache-');
  const installed = install(cache, '0123456789abcdef', 0);
  const abandoned = `${installed}.staging-${gone()}-0a1b2c3d`;
  fs.mkdirSync(path.join(abandoned, 'node_modules'), { recursive: true });
  const live = stagingFor(installed);
  const orphanCopy = path.join(installed, `project-${gone()}-deadbeef`);
  fs.mkdirSync(orphanCopy);
  const ownCopy = ownFolderIn(installed, 'project');
  removeOrphans(cache);
  removeOrphans(installed);
  assert.equal(fs.existsSync(abandoned), false);
  assert.equal(fs.existsSync(orphanCopy), false);
  assert.equal(fs.existsSync(live), true);
  assert.equal(fs.existsSync(ownCopy), true);
  assert.equal(fs.existsSync(path.join(installed, 'node_modules')), true, 'the install itself is no orphan');
});

test('an install unused for a week is removed, unless it is the one in use or a live process has a copy in it', () => {
  const cache = tempDir('install-cache-');
  const old = install(cache, 'old', 8);
  const recent = install(cache, 'recent', 1);
  const wanted = install(cache, 'wanted', 30);
  const held = install(cache, 'held', 30);
  fs.mkdirSync(path.join(held, `project-${process.pid}-0badf00d`));
  const unfinished = path.join(cache, 'unfinished');
  fs.mkdirSync(unfinished);
  removeUnused(cache, MARKER, wanted);
  assert.deepEqual(fs.readdirSync(cache).sort(), ['held', 'recent', 'unfinished', 'wanted']);
  assert.equal(fs.existsSync(old), false);
  assert.ok(UNUSED_INSTALL_MS >= 24 * 3600_000);
  // a use renews it
  markUsed(recent, MARKER);
  removeUnused(cache, MARKER, wanted, Date.now() + UNUSED_INSTALL_MS - 60_000);
  assert.equal(fs.existsSync(recent), true);
});

test('a staging folder and a copy are removed when their process exits, also when it fails', () => {
  const cache = tempDir('install-cache-');
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('./scripts/upstream/installCache.ts').then(({ stagingFor, ownFolderIn }) => {
         console.log(stagingFor(${JSON.stringify(path.join(cache, 'install'))}));
         console.log(ownFolderIn(${JSON.stringify(cache)}, 'project'));
         throw new Error('the install failed');
       })`,
    ],
    { cwd: path.resolve(import.meta.dirname, '../../..'), encoding: 'utf8' },
  );
  assert.notEqual(child.status, 0);
  const made = child.stdout.trim().split('\n');
  assert.equal(made.length, 2, child.stdout + child.stderr);
  for (const dir of made) assert.equal(fs.existsSync(dir), false, `${dir} outlived its process`);
});
