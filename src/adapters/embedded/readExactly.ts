// A read of exactly so many bytes at an offset of an open file. fs.readSync may return fewer bytes
// than asked (a short read) without the file ending, so a single call is not enough; the shard
// trailer's lines, the grouped index files, a shard read whole and a journal's values all read so.
import fs from 'node:fs';

/** The `len` bytes at `at` of the open file `fd`; null when the file ends before them. */
export function readExactly(fd: number, at: number, len: number): Buffer | null {
  const buffer = Buffer.allocUnsafe(len);
  for (let done = 0; done < len;) {
    const n = fs.readSync(fd, buffer, done, len - done, at + done);
    if (n <= 0) return null;
    done += n;
  }
  return buffer;
}
