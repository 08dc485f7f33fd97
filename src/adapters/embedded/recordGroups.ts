// A grouped collection's records in memory (issue 91; pagedCollections.ts GROUPED_COLLECTIONS):
// a thread's checkpoints, writes or channel values are one group, in one snapshot shard
// (shardOf its key), listed on one line of the shard's saved index (its trailer, shardTrailer.ts). Memory
// keeps per group where that line is and how many records it lists; a group in use is held
// whole (a CollectionState of its own: entries, order, indexes), and let go again once it is
// on disk as it is and more records are held than the budget, the least recently used first.
// A group changed since its shard was last written is let go the same way, its records' places
// set aside off the heap (setAside.ts) until it is used again or the next snapshot writes it.
//
// A thread of 10 runs of the `agent` graph has ~170 such records: held, ~380 bytes of heap each;
// let go, ~200 bytes for the three groups together.
import fs from 'node:fs';
import { CollectionState, keptKeys, type Kept, type Paging } from './collectionState.ts';
import { groupOf } from './pagedCollections.ts';
import { pagedRecords } from './pagedShards.ts';
import { IN_SHARD, readGroupLine, type Side } from './groupedIndex.ts';
import { readTrailerLine } from './shardTrailer.ts';
import { LoadStrings } from './keptStrings.ts';
import { filesOf, setAside, takeBack } from './setAside.ts';
import type { IndexedRecord } from './indexRows.ts';
import { readExactly } from './readExactly.ts';

/**
 * A collection's records as its reader and writer see them: one state (CollectionState), or one
 * per group of records loaded while in use (recordGroups.ts). A state found for an id or a
 * `where` holds every record that id or `where` can name.
 */
export interface RecordSet {
  readonly paging: Paging | null;
  /** The set itself when its records are grouped, else null (one CollectionState). */
  readonly groups: RecordGroups | null;
  /** Set until the records of a paged collection are loaded after the start: begins loading them, and every request on it waits for it. */
  load: (() => Promise<void>) | null;
  /** How many records there are. */
  readonly size: number;
  entry(id: string): Kept | undefined;
  set(id: string, entry: Kept): void;
  remove(id: string): void;
  addIndex(field: string, only?: readonly string[]): void;
  /** The state holding the record `id`, if there is one. */
  holderOfId(id: string): CollectionState;
  /** The state holding the record `id` when it is in memory now, not read for this (a group not held has no value cached). */
  heldHolderOfId(id: string): CollectionState | undefined;
  /** The state holding every record matching `where`; undefined when they may be in any. */
  holderOf(where: Readonly<Record<string, string>> | undefined): CollectionState | undefined;
  /** Every state, one after the other (a scan of every record). */
  parts(): Iterable<CollectionState>;
}

/** One group: where its line is (`file` 0: nowhere that describes it as it is), and its records while held. */
export interface Group {
  readonly key: string;
  /** The number (PagedFiles) of the shard file its records are in; 0 when the line below is not the group as it is. */
  file: number;
  side: Side;
  at: number;
  len: number;
  /** Its records (when not held: as many as its line, or what is set aside, lists). */
  count: number;
  state: CollectionState | null;
  /** While not held and changed since its line was written: its records' places, set aside (setAside.ts). */
  aside: Buffer | null;
  /** Counts its changes: a snapshot records where a group is only when it did not change meanwhile. */
  version: number;
  older: Group | null;
  newer: Group | null;
}

/** What a group is read from: its shard's path, given the shard file's number. */
export interface GroupFiles {
  shardFileOf(key: string): string;
}

export class RecordGroups implements RecordSet {
  load: (() => Promise<void>) | null = null;
  private readonly byKey = new Map<string, Group>();
  private readonly indexes: string[] = [];
  private total = 0;
  /** Records in the groups held. */
  private held = 0;
  private oldest: Group | null = null;
  private newest: Group | null = null;
  /** Answers for a group there is not: holds nothing, ever. */
  private readonly none: CollectionState;

  constructor(
    readonly paging: Paging,
    /** The fields whose value names a group. */
    private readonly naming: readonly string[],
    /** Records held in groups that are on disk as they are, before the least recently used are let go. */
    private readonly budget: number,
    private readonly where: GroupFiles,
  ) {
    this.none = new CollectionState(paging);
  }

  get groups(): RecordGroups {
    return this;
  }

  get size(): number {
    return this.total;
  }

  /** How many records are held in memory now (the budget's measure). */
  get heldRecords(): number {
    return this.held;
  }

  entry(id: string): Kept | undefined {
    const group = this.byKey.get(groupOf(id));
    return group && this.hold(group).records.get(id);
  }

  holderOfId(id: string): CollectionState {
    const group = this.byKey.get(groupOf(id));
    return group ? this.hold(group) : this.none;
  }

  heldHolderOfId(id: string): CollectionState | undefined {
    return this.byKey.get(groupOf(id))?.state ?? undefined;
  }

  holderOf(where: Readonly<Record<string, string>> | undefined): CollectionState | undefined {
    if (!where) return undefined;
    for (const field of this.naming) {
      const value = where[field];
      if (value === undefined) continue;
      const group = this.byKey.get(groupOf(value));
      return group ? this.hold(group) : this.none;
    }
    return undefined;
  }

  *parts(): Iterable<CollectionState> {
    for (const group of [...this.byKey.values()]) if (this.byKey.get(group.key) === group) yield this.hold(group);
  }

  set(id: string, entry: Kept): void {
    // a copy of its own: the slice of the id would keep the whole id alive as long as the group (~0.1-1 KB)
    const key = structuredClone(groupOf(id));
    let group = this.byKey.get(key);
    if (!group) {
      group = { key, file: 0, side: 0, at: 0, len: 0, count: 0, state: null, aside: null, version: 0, older: null, newer: null };
      this.byKey.set(key, group);
    }
    const state = this.hold(group);
    const added = !state.records.has(id);
    state.set(id, entry);
    if (added) {
      this.total += 1;
      this.held += 1;
    }
    this.changed(group);
  }

  remove(id: string): void {
    const group = this.byKey.get(groupOf(id));
    if (!group) return;
    const state = this.hold(group);
    if (!state.records.has(id)) return;
    state.remove(id);
    this.total -= 1;
    this.held -= 1;
    this.changed(group);
    if (state.records.size === 0) {
      // its shard is written without it (the write that emptied it marked the shard)
      this.unlink(group);
      this.byKey.delete(group.key);
    }
  }

  addIndex(field: string): void {
    if (this.indexes.includes(field)) return;
    this.indexes.push(field);
    for (let group = this.oldest; group; group = group.newer) group.state!.addIndex(field);
  }

  /**
   * A group whose line a saved index lists, at a start; false when the group is known already (the
   * shard is then read instead). `key`: the line's key, or an equal string shared with others.
   */
  addOnDisk(line: { key: string; at: number; len: number; count: number }, file: number, side: Side, key = line.key): boolean {
    if (this.byKey.has(key)) return false;
    this.paging.files.ref(file);
    this.byKey.set(key, {
      key,
      file,
      side,
      at: line.at,
      len: line.len,
      count: line.count,
      state: null,
      aside: null,
      version: 0,
      older: null,
      newer: null,
    });
    this.total += line.count;
    return true;
  }

  /** Whether none of these groups is known yet. */
  noneKnown(keys: readonly string[]): boolean {
    return keys.every((key) => !this.byKey.has(key));
  }

  /** The groups of each shard asked for, found by one pass (a snapshot's). */
  inShards(shards: Set<number>, shardOf: (key: string) => number): Map<number, Group[]> {
    const out = new Map<number, Group[]>([...shards].sort((a, b) => a - b).map((shard) => [shard, []]));
    for (const group of this.byKey.values()) out.get(shardOf(group.key))?.push(group);
    return out;
  }

  /** A group's records as they are now, in order, without holding it: its entries while held, else its line's records located in its shard. */
  recordsOf(group: Group): [string, Kept][] {
    const state = group.state;
    if (state) return [...state.order.forward()].map((id) => [id, state.records.get(id)!]);
    if (group.aside) return takeBack(group.aside, this.paging.kept);
    return this.lineOf(group).map((row) => [row.id, { seq: row.seq, value: undefined, slot: -1, file: group.file, at: row.at, len: row.len, keys: row.keys }]);
  }

  /** Whether `group` is the one the collection has under its key, unchanged since `version`. */
  unchanged(group: Group, version: number): boolean {
    return this.byKey.get(group.key) === group && group.version === version;
  }

  /** A snapshot wrote `group` as it is into the shard file `file`, listed on `line` of its index on `side`: it is read from there from now on. */
  placed(group: Group, file: number, side: Side, line: { at: number; len: number }): void {
    const files = this.paging.files;
    files.ref(file);
    if (group.file) files.unref(group.file);
    if (group.aside) {
      // what was set aside is on that line now
      for (const number of filesOf(group.aside)) files.unref(number);
      group.aside = null;
    }
    group.file = file;
    group.side = side;
    group.at = line.at;
    group.len = line.len;
  }

  /** Lets go of the least recently used groups, until the records held are within the budget: those changed since their line was written are set aside. */
  trim(): void {
    for (let group = this.oldest; group && this.held > this.budget && group !== this.newest;) {
      const newer: Group | null = group.newer;
      if (group.file) this.letGo(group);
      else this.setAside(group);
      group = newer;
    }
  }

  private hold(group: Group): CollectionState {
    if (group.state) {
      if (group !== this.newest) {
        this.unlink(group);
        this.link(group);
      }
      return group.state;
    }
    const state = new CollectionState(this.paging);
    for (const field of this.indexes) state.addIndex(field);
    const strings = new LoadStrings();
    const rows: [string, Kept][] = group.aside
      ? takeBack(group.aside, this.paging.kept)
      : this.lineOf(group)
          .sort((a, b) => a.seq - b.seq)
          .map((row) => [row.id, { seq: row.seq, value: undefined, slot: -1, file: group.file, at: row.at, len: row.len, keys: row.keys }]);
    for (const [id, entry] of rows) {
      entry.keys = keptKeys(entry.keys!, strings);
      state.set(strings.share(id), entry);
    }
    if (group.aside) {
      // each entry holds its file open now (state.set), not what was set aside
      for (const [, entry] of rows) this.paging.files.unref(entry.file!);
      group.aside = null;
    }
    this.total += rows.length - group.count;
    group.count = rows.length;
    group.state = state;
    this.held += rows.length;
    this.link(group);
    this.trim();
    return state;
  }

  /** A group's records as its line lists them; when the line cannot be read, as its shard holds them (the shard is the truth). */
  private lineOf(group: Group): IndexedRecord[] {
    if (!group.file) return [];
    const shardFile = this.where.shardFileOf(group.key);
    const files = this.paging.files;
    const fd = files.descriptor(group.file);
    // its line: in the shard file's trailer, or in an index file of the layout before it
    const rows = group.side === IN_SHARD ? readTrailerLine(fd, group, this.paging.kept) : readGroupLine(shardFile, group.side, group, this.paging.kept);
    if (rows) return rows;
    const size = fs.fstatSync(fd).size;
    const buffer = readExactly(fd, 0, size);
    if (!buffer) throw new Error(`${shardFile} ends before ${size} bytes`);
    const records = pagedRecords(buffer);
    if (!records) throw new Error(`${shardFile}: neither its saved index nor the shard itself can be read`);
    const kept = this.paging.kept;
    return records
      .filter((r) => groupOf(r.id) === group.key)
      .map((r) => ({ id: r.id, seq: r.seq, at: r.at, len: r.len, keys: kept.map((field) => (r.value as Record<string, unknown>)[field]) }));
  }

  private changed(group: Group): void {
    group.version += 1;
    if (group.file) this.paging.files.unref(group.file);
    group.file = 0;
  }

  /** Lets go of a group changed since its line was written: its records' places set aside, each file held open by them; kept held when one is not on disk. */
  private setAside(group: Group): void {
    const state = group.state!;
    const aside = setAside(this.recordsOf(group), this.paging.kept);
    if (!aside) return;
    group.aside = aside;
    group.count = state.records.size;
    state.releaseCached();
    group.state = null;
    this.held -= group.count;
    this.unlink(group);
  }

  private letGo(group: Group): void {
    const state = group.state!;
    group.count = state.records.size;
    state.releaseAll();
    group.state = null;
    this.held -= group.count;
    this.unlink(group);
  }

  private link(group: Group): void {
    group.older = this.newest;
    group.newer = null;
    if (this.newest) this.newest.newer = group;
    else this.oldest = group;
    this.newest = group;
  }

  private unlink(group: Group): void {
    if (!group.state && group.older === null && group.newer === null && this.oldest !== group) return; // not held
    if (group.older) group.older.newer = group.newer;
    else this.oldest = group.newer;
    if (group.newer) group.newer.older = group.older;
    else this.newest = group.older;
    group.older = group.newer = null;
  }
}
