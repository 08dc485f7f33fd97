// The runner's temporary folders (scripts/testTempDirs.ts): each test file's process has a
// TMPDIR of its own inside the run's folder, and what a file leaves there is named by the file;
// a run whose runner was killed is removed by the next. In process, on folders of its own.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { RUN_PREFIX, fileTempDir, leftBehind, makeRunTempDir, removeLeftRuns } from '../../scripts/testTempDirs.ts';

const realTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'run-temp-dirs-'));
after(() => fs.rmSync(realTmp, { recursive: true, force: true }));

test('what a test file leaves in its TMPDIR is named by the file, with its size; a file that left nothing is not', () => {
  const run = makeRunTempDir(realTmp);
  const leaky = fileTempDir(path.join(run, 'files'), '0001-test-leaky.test.ts', realTmp);
  const tidy = fileTempDir(path.join(run, 'files'), '0002-test-tidy.test.ts', realTmp);
  fs.mkdirSync(path.join(leaky, 'agentplane-test-abc123'));
  fs.writeFileSync(path.join(leaky, 'agentplane-test-abc123', 'journal'), Buffer.alloc(4096));
  fs.writeFileSync(path.join(leaky, 'stray.log'), 'x');
  // a folder made and removed again is no leak
  fs.rmSync(fs.mkdtempSync(path.join(tidy, 'agentplane-test-')), { recursive: true });
  assert.deepEqual(leftBehind(path.join(run, 'files')), [{ file: '0001-test-leaky.test.ts', entries: ['agentplane-test-abc123', 'stray.log'], bytes: 4097 }]);
});

test("tsx's cache in a file's TMPDIR is the machine's, shared, and not a leak", () => {
  const run = makeRunTempDir(realTmp);
  const dir = fileTempDir(path.join(run, 'files'), '0001-test-child.test.ts', realTmp);
  const cache = `tsx-${os.userInfo().uid}`;
  fs.writeFileSync(path.join(dir, cache, 'compiled.js'), '');
  assert.ok(fs.existsSync(path.join(realTmp, cache, 'compiled.js')));
  assert.deepEqual(leftBehind(path.join(run, 'files')), []);
  fs.rmSync(run, { recursive: true });
  assert.ok(fs.existsSync(path.join(realTmp, cache, 'compiled.js')), 'removing the run keeps the shared cache');
});

test('the folder of a run whose runner is gone is removed by the next run; a running one is kept', () => {
  const gone = spawnSync(process.execPath, ['-e', '']).pid!;
  const left = path.join(realTmp, `${RUN_PREFIX}${gone}-abcdef`);
  const running = path.join(realTmp, `${RUN_PREFIX}${process.pid}-abcdef`);
  const other = path.join(realTmp, 'agentplane-test-xyz');
  for (const dir of [left, running, other]) fs.mkdirSync(path.join(dir, 'files'), { recursive: true });
  removeLeftRuns(realTmp);
  assert.equal(fs.existsSync(left), false);
  assert.equal(fs.existsSync(running), true);
  assert.equal(fs.existsSync(other), true, 'what is not a run of the runner is not its to remove');
});
