import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readExactly } from '../../../src/adapters/embedded/readExactly.ts';
import { tempDir } from '../../support/tempDirs.ts';

test('reads exactly the bytes asked at an offset, however few each read returns; null where the file ends before them', (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'bytes');
  fs.writeFileSync(file, '0123456789');
  const fd = fs.openSync(file, 'r');
  t.after(() => fs.closeSync(fd));
  // short reads: at most 3 bytes a call
  const readSync = fs.readSync;
  const reads = t.mock.method(fs, 'readSync', (f: number, buffer: Buffer, offset: number, length: number, position: number) =>
    readSync(f, buffer, offset, Math.min(length, 3), position),
  );
  assert.equal(readExactly(fd, 2, 7)?.toString(), '2345678');
  assert.equal(readExactly(fd, 0, 10)?.toString(), '0123456789');
  assert.ok(reads.mock.callCount() >= 3 + 4, 'each read returned 3 bytes at most');
  assert.equal(readExactly(fd, 0, 0)?.length, 0);
  assert.equal(readExactly(fd, 5, 6), null);
});
