// Where the embedded store keeps the values of its bulky collections (issue 91): on disk, in the
// journal line or snapshot shard that holds their JSON, read back on demand through a bounded
// cache. The heap keeps per record only where its bytes are (file, offset, length) and the few
// fields its indexes and orders need; the cache keeps the values read or written last, up to a
// budget of JSON bytes. The files are read through descriptors opened once: a snapshot renames a
// new shard over the old one and a retired journal file is deleted, yet a record still located in
// the old inode reads it until it has been moved, and its descriptor is closed only then.
import fs from 'node:fs';

/** Where a value's JSON is: a file of `PagedFiles`, its byte offset and length. */
export interface Location {
  file: number;
  at: number;
  len: number;
}

interface OpenFile {
  path: string;
  fd: number;
  /** Records located in it. */
  refs: number;
  /** Replaced or deleted on disk: closed as soon as no record is located in it. */
  retired: boolean;
}

/** The files paged values are read from, by a small number each, counted by the records in them. */
export class PagedFiles {
  private readonly files = new Map<number, OpenFile>();
  private readonly byPath = new Map<string, number>();
  private next = 1;

  /** The number of the file now at `file` (opened once, until it is retired). */
  open(file: string): number {
    const known = this.byPath.get(file);
    if (known !== undefined) return known;
    const number = this.next++;
    this.files.set(number, { path: file, fd: fs.openSync(file, 'r'), refs: 0, retired: false });
    this.byPath.set(file, number);
    return number;
  }

  ref(number: number): void {
    this.files.get(number)!.refs += 1;
  }

  unref(number: number): void {
    const file = this.files.get(number);
    if (!file) return;
    file.refs -= 1;
    if (file.refs <= 0 && file.retired) this.close(number);
  }

  /** The file at this path is being replaced or deleted: the next open of the path opens the new one. */
  retire(file: string): void {
    const number = this.byPath.get(file);
    if (number === undefined) return;
    this.byPath.delete(file);
    const open = this.files.get(number)!;
    open.retired = true;
    if (open.refs <= 0) this.close(number);
  }

  /** The descriptor of an open file (its saved index is checked against it). */
  descriptor(number: number): number {
    return this.files.get(number)!.fd;
  }

  read(location: Location): Buffer {
    const file = this.files.get(location.file);
    if (!file) throw new Error(`paged value in a closed file (${location.file})`);
    const buffer = Buffer.allocUnsafe(location.len);
    let done = 0;
    while (done < location.len) {
      const n = fs.readSync(file.fd, buffer, done, location.len - done, location.at + done);
      if (n <= 0) throw new Error(`${file.path} ends before the value at ${location.at} (${location.len} bytes)`);
      done += n;
    }
    return buffer;
  }

  closeAll(): void {
    for (const number of [...this.files.keys()]) this.close(number);
  }

  private close(number: number): void {
    const file = this.files.get(number)!;
    this.files.delete(number);
    if (this.byPath.get(file.path) === number) this.byPath.delete(file.path);
    fs.closeSync(file.fd);
  }
}

/** The values read or written last, least recently used evicted first, within a budget of JSON bytes. */
export class ValueCache<K extends object> {
  private readonly held = new Map<K, { value: object; bytes: number }>();
  private bytes = 0;

  constructor(readonly budget: number) {}

  get(key: K): object | undefined {
    const hit = this.held.get(key);
    if (!hit) return undefined;
    this.held.delete(key); // to the newest end
    this.held.set(key, hit);
    return hit.value;
  }

  put(key: K, value: object, bytes: number): void {
    this.drop(key);
    if (bytes > this.budget) return;
    this.held.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, { bytes: size }] of this.held) {
      if (this.bytes <= this.budget) break;
      this.held.delete(oldest);
      this.bytes -= size;
    }
  }

  drop(key: K): void {
    const hit = this.held.get(key);
    if (!hit) return;
    this.held.delete(key);
    this.bytes -= hit.bytes;
  }

  get size(): number {
    return this.bytes;
  }
}
