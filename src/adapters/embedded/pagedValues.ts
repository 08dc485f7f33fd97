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
import { frozenCopyMeasured } from '../../domain/freeze.ts';

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

/** How far apart two values may lie for one read to take both (the bytes between are read and dropped: a syscall costs ~4 µs, copying 16 KB less). */
const JOIN_GAP = 16 * 1024;

/** The most one read takes (a longer value alone is read whole). */
const JOIN_MOST = 256 * 1024;

/**
 * The bytes of many values at once (a snapshot's of one shard, a batch at a time), in the order
 * asked for; null where none is asked (`wanted[i]` null). They are read in the order they lie in
 * their files, and values within JOIN_GAP of each other come from one read: the records of a
 * shard's last file lie one after the other, and those a journal holds of one shard (a thread's
 * checkpoints, among the lines of every other shard) mostly a few lines apart, so a read each
 * (~2 syscalls a record a snapshot rewrote; issue 86) or a fixed window read ahead (64 KB
 * mostly wasted on a journal's lines; issue 91: 93 MB read for a 24-MB snapshot) cost more than
 * the bytes. A value apart from every other is asked of `held` first (a value the cache holds,
 * where a read would be a syscall of its own). The file being appended to (`appended`, the
 * journal's last segment) is read a value at a time: a failed line not yet cut off may lie
 * between its records. The bytes a file holds at a place never change once it is no longer
 * appended to (a retired journal, a shard written whole under a new name).
 */
export function readValues(
  files: PagedFiles,
  wanted: readonly (Location | null)[],
  appended: number,
  held?: (i: number) => Buffer | undefined,
): (Buffer | null)[] {
  const out: (Buffer | null)[] = new Array<Buffer | null>(wanted.length).fill(null);
  const order: number[] = [];
  wanted.forEach((where, i) => where && order.push(i));
  order.sort((a, b) => wanted[a]!.file - wanted[b]!.file || wanted[a]!.at - wanted[b]!.at);
  for (let k = 0; k < order.length;) {
    const first = wanted[order[k]!]!;
    let end = first.at + first.len;
    let next = k + 1;
    if (first.file !== appended)
      for (; next < order.length; next += 1) {
        const where = wanted[order[next]!]!;
        const to = Math.max(end, where.at + where.len);
        if (where.file !== first.file || where.at - end > JOIN_GAP || to - first.at > JOIN_MOST) break;
        end = to;
      }
    if (next === k + 1) out[order[k]!] = held?.(order[k]!) ?? files.read(first);
    else {
      const range = files.read({ file: first.file, at: first.at, len: end - first.at });
      for (let m = k; m < next; m += 1) {
        const where = wanted[order[m]!]!;
        out[order[m]!] = range.subarray(where.at - first.at, where.at - first.at + where.len);
      }
    }
    k = next;
  }
  return out;
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

/**
 * frozenCopy(value) and its cacheCost, in one walk (issue 91: the copy and the cost were two walks
 * of every record written); undefined when `value` is not a plain object or is frozen already
 * (frozenCopy and cacheCost apart, then). Its `fresh` parts, to be remembered, must be none: a
 * remembered part is weighed with its text.
 */
export function frozenCopyAndCost<T extends object>(value: T): { copy: T; cost: number } | undefined {
  const measured = frozenCopyMeasured(
    value,
    (part) => heapBytesOf(part),
    (part) => knownPart(part)?.heap,
  );
  return measured && { copy: measured.copy, cost: measured.heap + HELD_BYTES };
}

/** A held value and its neighbours in recency order. */
interface Held<K> {
  key: K;
  value: object;
  bytes: number;
  /** Whether the value's text on disk is its JSON.stringify (up to JSON's own round trip): not a writer's text given with it (PutOp.json). */
  ownText: boolean;
  /** When it was last put or read (performance.now()): dropUnused. */
  usedAt: number;
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
    } else hit.usedAt = performance.now();
    return hit.value;
  }

  /** The value held under `key`, without making it the most recently used (a value about to be dropped). */
  peek(key: K): object | undefined {
    return this.held.get(key)?.value;
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
    const entry: Held<K> = { key, value, bytes, ownText, usedAt: 0, older: null, newer: null };
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

  /**
   * Drops the values not put or read since `since` (performance.now()): the oldest end of the
   * recency list, up to the first one used since. Returns the bytes (cacheCost) dropped.
   */
  dropUnused(since: number): number {
    const before = this.bytes;
    while (this.oldest && this.oldest.usedAt < since) this.drop(this.oldest.key);
    return before - this.bytes;
  }

  /** Puts `entry` at the newest end. */
  private link(entry: Held<K>): void {
    entry.usedAt = performance.now();
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
