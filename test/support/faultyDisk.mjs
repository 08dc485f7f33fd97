// Preloaded into a test server (NODE_OPTIONS=--import=<this file>): its journal files sit on a
// pretend disk whose size the test sets. FAULTY_DISK_LIMIT names a file holding the largest
// size, in bytes, the journal file being written may reach; while that file exists a write
// that does not fit writes what fits (a short count, as write(2) does on a filling disk) and
// the next call fails with ENOSPC. Deleting the file is "space returns". Plain JavaScript, so
// it loads before tsx; it patches the fs module object, which the store calls through.
// A file holding EIO instead of a number makes every journal write fail with EIO.
import fs from 'node:fs';

const control = process.env.FAULTY_DISK_LIMIT;
const journal = /[\\/]journal[\\/]\d+\.log$/;
const journalFds = new Set();
const { openSync, closeSync, writeSync, readFileSync, fstatSync } = fs;

fs.openSync = function (file, ...rest) {
  const fd = openSync.call(this, file, ...rest);
  if (typeof file === 'string' && journal.test(file)) journalFds.add(fd);
  return fd;
};
fs.closeSync = function (fd) {
  journalFds.delete(fd);
  return closeSync.call(this, fd);
};
fs.writeSync = function (fd, buffer, offset, length, ...rest) {
  if (!control || !journalFds.has(fd) || typeof buffer === 'string') return writeSync.call(this, fd, buffer, offset, length, ...rest);
  let limit = Infinity;
  try {
    const text = readFileSync(control, 'utf8').trim();
    if (text === 'EIO') throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', errno: -5, syscall: 'write' });
    limit = Number(text);
  } catch (err) {
    if (err.code === 'EIO') throw err;
    // no limit: space has returned
  }
  offset ??= 0;
  length ??= buffer.length - offset;
  const room = limit - fstatSync(fd).size;
  if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  return writeSync.call(this, fd, buffer, offset, Math.min(length, room));
};
