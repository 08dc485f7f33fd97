// A snapshot's files are written whole or not at all (a private temporary file renamed over the
// old one). The write goes through fs's callback calls on a descriptor (issue 91: cheaper for the
// main thread than fs.promises' FileHandle and rimraf's `rm`); what it must keep doing is checked
// here: every chunk written whole, a leftover temporary file of another mode started afresh, and a
// write that fails leaves the old file and no temporary one.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_MODE, writeFileAtomic } from '../../../src/adapters/embedded/dataDir.ts';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'write-file-atomic-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('chunks, a buffer and a string are written whole, private, fsynced or not', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'shard-1.json');
  const big = Buffer.alloc(3 * 1024 * 1024, 'a');
  async function* chunks() {
    yield Buffer.from('head,');
    yield big;
    yield Buffer.from(',tail');
  }
  await writeFileAtomic(file, chunks(), true);
  assert.equal(fs.readFileSync(file, 'latin1'), `head,${big.toString('latin1')},tail`);
  assert.equal(fs.statSync(file).mode & 0o777, FILE_MODE);
  await writeFileAtomic(file, Buffer.from('buffer é'), false);
  assert.equal(fs.readFileSync(file, 'utf8'), 'buffer é');
  await writeFileAtomic(file, 'string é', true);
  assert.equal(fs.readFileSync(file, 'utf8'), 'string é');
  assert.deepEqual(fs.readdirSync(dir), ['shard-1.json']);
});

test('chunks given as buffers to write one after the other are written whole, in order, however little each writev takes', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'shard-3.json');
  // each writev takes at most 5 bytes: the rest is written by the next, from where it stopped
  const real = fs.writev;
  const writevs = mock.method(fs, 'writev', (fd: number, buffers: Buffer[], position: null, cb: (err: Error | null, n: number) => void) =>
    real(fd, [Buffer.concat(buffers).subarray(0, 5)], position, cb),
  );
  try {
    async function* chunks() {
      yield [Buffer.from('{"a":'), Buffer.alloc(0), Buffer.from('"é1"'), Buffer.from(',')];
      yield Buffer.from('"b":2');
      yield [Buffer.from('}')];
    }
    await writeFileAtomic(file, chunks(), false);
  } finally {
    writevs.mock.restore();
  }
  assert.equal(fs.readFileSync(file, 'utf8'), '{"a":"é1","b":2}');
  assert.ok(writevs.mock.callCount() >= 3, `${writevs.mock.callCount()} writevs`);
});

test('a leftover temporary file (another mode, longer) is started afresh', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'shard-2.json');
  const tmp = path.join(dir, '.shard-2.json.tmp');
  fs.writeFileSync(tmp, 'a leftover longer than what is written now', { mode: 0o644 });
  fs.chmodSync(tmp, 0o644);
  await writeFileAtomic(file, 'new', false);
  assert.equal(fs.readFileSync(file, 'utf8'), 'new');
  assert.equal(fs.statSync(file).mode & 0o777, FILE_MODE);
  assert.equal(fs.existsSync(tmp), false);
});

test('a write that fails leaves the old file as it was and no temporary file', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'shard-3.json');
  fs.writeFileSync(file, 'old');
  async function* failing() {
    yield Buffer.from('part of the new');
    throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
  }
  await assert.rejects(writeFileAtomic(file, failing(), true), /no space left/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'old');
  assert.deepEqual(fs.readdirSync(dir), ['shard-3.json']);
});

test("a write where no leftover temporary file is removes none: no unlink before each of a snapshot's files (issue 91)", async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'shard-4.json');
  const unlinks = mock.method(fs, 'unlink');
  try {
    await writeFileAtomic(file, 'first', false);
    await writeFileAtomic(file, 'second', true);
    assert.equal(unlinks.mock.callCount(), 0);
  } finally {
    unlinks.mock.restore();
  }
  assert.equal(fs.readFileSync(file, 'utf8'), 'second');
  assert.deepEqual(fs.readdirSync(dir), ['shard-4.json']);
});
