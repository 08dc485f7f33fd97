// Where the embedded store keeps the values of its bulky collections (issue 91): on disk, in the
// journal line or snapshot shard that holds their JSON, read back on demand through a bounded
// cache. The heap keeps per record only where its bytes are (file, offset, length) and the few
// fields its indexes and orders need; the cache keeps the values read or written last, up to a
// budget of the heap they cost (heapSize.ts). The files are read through descriptors opened once: a snapshot renames a
// new shard over the old one and a retired journal file is deleted, yet a record still located in
// the old inode reads it until it has been moved, and its descriptor is closed only then.
import fs from 'node:fs';
import { heapBytesOf } from './heapSize.ts';
import { knownPart } from './writtenParts.ts';

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

  /** The path a file was opened at (to name it in an error). */
  pathOf(number: number): string {
    return this.files.get(number)?.path ?? `file ${number}`;
  }

  /** The descriptor of an open file (its saved index is checked against it). */
  descriptor(number: number): number {
    return this.files.get(number)!.fd;
  }

  read(location: Location): Buffer {
    return this.readAhead(location, location.len);
  }

  /** The bytes at `location` and up to `ahead` bytes from its start (fewer where the file ends after it). */
  readAhead(location: Location, ahead: number): Buffer {
    const file = this.files.get(location.file);
    if (!file) throw new Error(`paged value in a closed file (${location.file})`);
    const want = Math.max(ahead, location.len);
    const buffer = Buffer.allocUnsafe(want);
    let done = 0;
    while (done < location.len) {
      const n = fs.readSync(file.fd, buffer, done, want - done, location.at + done);
      if (n <= 0) throw new Error(`${file.path} ends before the value at ${location.at} (${location.len} bytes)`);
      done += n;
    }
    return done === want ? buffer : buffer.subarray(0, done);
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

/** How far apart two values may lie for the second to be read with the first (a shard's records: an id and a seq between them). */
const NEXT_GAP = 256;

/** How much a read of values lying one after the other takes at once. */
const READ_AHEAD = 64 * 1024;

/**
 * Reads of values in the order they lie in their files (a snapshot's of one shard): where a value
 * begins right after the one read before it (the records of a shard's last file), the next ones
 * come from one read of READ_AHEAD bytes rather than a read each (~2 syscalls a record a
 * snapshot rewrote; issue 86: a created thread's share of the snapshots was most of its cost
 * beyond d5486dc's). Values apart (a journal's lines of one shard among every other's) are read
 * one by one, as before. The bytes a file holds at a place never change once it is no longer
 * appended to (a retired journal, a shard written whole under a new name), so a window read
 * earlier stays right.
 */
export class ReadsInOrder {
  private window: Buffer | null = null;
  private file = 0;
  /** Where `window` begins in `file`. */
  private start = 0;
  /** Where the last value read ends in `file`. */
  private end = -1;

  /** `appended`: the file being written now (the journal's last segment), never read ahead: a failed line not yet cut off may lie past its last record. */
  constructor(
    private readonly files: PagedFiles,
    private readonly appended: () => number,
  ) {}

  /**
   * The value's bytes at `where`. `held`, when given, is asked for them only where the read would
   * be a syscall of its own (a value apart from the last one read, not in the window): a journal's
   * line of one shard, 64 lines from the next, cost a `pread` of a record each (~4 µs, the largest
   * part of a snapshot's record; issue 86), where the value cache mostly holds the newest ones.
   */
  read(where: Location, held?: () => Buffer | undefined): Buffer {
    const window = this.window;
    const next = where.file === this.file && where.at >= this.end && where.at - this.end <= NEXT_GAP && where.file !== this.appended();
    this.end = where.at + where.len;
    if (window && where.file === this.file && where.at >= this.start && this.end <= this.start + window.length)
      return window.subarray(where.at - this.start, this.end - this.start);
    this.file = where.file;
    if (!next) {
      this.window = null;
      return held?.() ?? this.files.read(where);
    }
    this.window = this.files.readAhead(where, READ_AHEAD);
    this.start = where.at;
    return this.window.subarray(0, where.len);
  }
}

/** What a value held costs the heap beyond itself: its Held below and its slot in the map (~100 bytes). */
const HELD_BYTES = 112;

/**
 * What a paged value costs the cache's budget: the heap it and its place in the cache take, not
 * its JSON (a value parsed from 1 byte of JSON weighs ~1.5-1.8 bytes of heap, and an entry of
 * the cache ~100 bytes more), so that AGENTPLANE_STORE_CACHE_MB is what the cache holds.
 */
export function cacheCost(value: object): number {
  // a part written before (a thread's values) is counted from what was remembered of it, with its text, not walked again
  return heapBytesOf(value, (part) => knownPart(part)?.heap) + HELD_BYTES;
}

/** A held value and its neighbours in recency order. */
interface Held<K> {
  key: K;
  value: object;
  bytes: number;
  /** Whether the value's text on disk is its JSON.stringify (up to JSON's own round trip): not a writer's text given with it (PutOp.json). */
  ownText: boolean;
  older: Held<K> | null;
  newer: Held<K> | null;
}

/**
 * The values read or written last, least recently used evicted first, within a budget of
 * bytes (what each costs: cacheCost). Recency is a list of its own, not the map's insertion order: moving a hit to the map's
 * newest end (delete, then set the same key) leaves each deleted copy in the key's hash chain
 * until the table is rebuilt, so a value read again and again in a large cache walked thousands
 * of them: ~45 µs a read with 20,000 values held, and a thread polled by GET /threads/{id} among
 * 20,000 ran at a quarter of the rate it had among a few (issue 86). The map now only ever gains
 * a key when it is put and loses it when it is dropped or evicted.
 */
export class ValueCache<K> {
  private readonly held = new Map<K, Held<K>>();
  private oldest: Held<K> | null = null;
  private newest: Held<K> | null = null;
  private bytes = 0;
  /** Heap held elsewhere that the budget covers too (shareWith). */
  private readonly shares: (() => number)[] = [];

  constructor(readonly budget: number) {}

  /**
   * Counts `held` (bytes of heap another holder keeps: the finished runs' event logs, the
   * grouped collections' records held) in this budget, so that together they stay within it:
   * the cache keeps what the others leave. A holder calls `trim` when it has grown.
   */
  shareWith(held: () => number): void {
    this.shares.push(held);
    this.trim();
  }

  /** Evicts the values used least recently until they and the shared parts fit the budget. */
  trim(): void {
    let room = this.budget;
    for (const held of this.shares) room -= held();
    while (this.bytes > room && this.oldest) this.drop(this.oldest.key);
  }

  get(key: K): object | undefined {
    const hit = this.held.get(key);
    if (!hit) return undefined;
    if (hit !== this.newest) {
      this.unlink(hit);
      this.link(hit);
    }
    return hit.value;
  }

  /**
   * The value held under `key` whose text on disk is its own JSON (put with `ownText`), without
   * making it the most recently used: a snapshot writes it again from here rather than reading it.
   */
  peekOwnText(key: K): object | undefined {
    const hit = this.held.get(key);
    return hit?.ownText ? hit.value : undefined;
  }

  /** `ownText`: the text on disk is JSON.stringify(value) (parsed from it, or the store's own serialisation), not a writer's given with it. */
  put(key: K, value: object, bytes: number, ownText = true): void {
    this.drop(key);
    if (bytes > this.budget) return;
    const entry: Held<K> = { key, value, bytes, ownText, older: null, newer: null };
    this.held.set(key, entry);
    this.link(entry);
    this.bytes += bytes;
    this.trim();
  }

  drop(key: K): void {
    const hit = this.held.get(key);
    if (!hit) return;
    this.held.delete(key);
    this.unlink(hit);
    this.bytes -= hit.bytes;
  }

  get size(): number {
    return this.bytes;
  }

  /** Puts `entry` at the newest end. */
  private link(entry: Held<K>): void {
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: Held<K>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = entry.newer = null;
  }
}
