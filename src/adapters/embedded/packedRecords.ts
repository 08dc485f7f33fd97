// The entries of a paged collection that is not grouped (runs, threads: pagedCollections.ts) in
// packed form (issue 91). A run of the `agent` graph leaves one run record and a tenth of a
// thread's, and a server keeps every one of them for as long as it runs: as objects (the entry,
// its array of kept fields, each time a string of its own) that was ~250 bytes of heap a run
// beside its id. Here a record is a row of typed columns (its seq, where its value is, its
// place in the order, each time as a number) and its kept fields' references in one array;
// the entry a reader sees (Kept) is made from the row when it is read. Its id is kept by number
// (packedIds.ts), and so are its places in the collection's order and indexes (orderedIds.ts),
// and its other kept fields by codes (keptCodes.ts).
import type { IdHandles, Positions } from './orderedIds.ts';
import { PackedIds } from './packedIds.ts';
import { ABSENT, EMPTY, KeptCodes, OTHER, OWN_ID } from './keptCodes.ts';
import { frozenCopy } from '../../domain/freeze.ts';
import type { Kept } from './keptEntry.ts';
import { isoOf, msOfIso } from '../../domain/clock.ts';

/** The kept fields packed as numbers when their value is what `new Date(ms).toISOString()` gives back (a record's times). */
export const TIME_FIELDS: readonly string[] = ['created_at', 'updated_at'];

/**
 * Every stored version of a packed record gets a number of its own: the value cache keys the
 * versions by it (an entry read is made anew at each read, so it cannot be the key itself).
 */
let versions = 0;

/** What a Map of entries by id offers the store (collectionState.ts), packed or not. */
export interface RecordMap {
  readonly size: number;
  get(id: string): Kept | undefined;
  has(id: string): boolean;
  set(id: string, entry: Kept): void;
  delete(id: string): boolean;
  keys(): IterableIterator<string>;
  values(): IterableIterator<Kept>;
  entries(): IterableIterator<[string, Kept]>;
  [Symbol.iterator](): IterableIterator<[string, Kept]>;
  /** Where the order's places are kept, when the map keeps them (else on the entries). */
  readonly positions?: Positions;
  /** The numbers the order and the indexes hold for its ids, when it numbers them (else the ids). */
  readonly handles?: IdHandles;
  /** Every record's number and its id's text (packedIds.ts textOf), when it numbers them. */
  numbered?(): IterableIterator<[number, Uint8Array | string]>;
  /** Writes back where the version `entry` is now, when entries are read as copies. */
  relocated?(id: string, entry: Kept): void;
}

/** The key of a record's value in the value cache (pagedValues.ts ValueCache): its version when packed, the entry itself otherwise. */
export function cacheKeyOf(entry: Kept): Kept | number {
  return entry.version ?? entry;
}

/** Whether two entries read of a record are the same version of it. */
export function sameVersion(a: Kept | undefined, b: Kept): boolean {
  return a === b || (a !== undefined && a.version !== undefined && a.version === b.version);
}

const NONE = -1;

/** The frozen empty object every frozen copy of `{}` is (freeze.ts): what a field coded EMPTY reads back. */
const EMPTY_VALUE: object = frozenCopy({});

/** Whether `key` is a frozen plain object without a key of its own (coded EMPTY: read back as EMPTY_VALUE, which no reader can tell from it). */
function isEmptyObject(key: object): boolean {
  if (!Object.isFrozen(key) || Object.getPrototypeOf(key) !== Object.prototype) return false;
  for (const field in key) if (Object.hasOwn(key, field)) return false;
  return true;
}

export class PackedRecords implements RecordMap, IdHandles {
  private readonly ids = new PackedIds();
  /** Per id's handle, the row of its record's version. */
  private rowOf = new Int32Array(0);
  /** Per row, the handle of its record's id. */
  private owners = new Int32Array(0);
  private readonly free: number[] = [];
  private capacity = 0;
  private used = 0;
  private seqs = new Float64Array(0);
  private ats = new Float64Array(0);
  private versionOf = new Float64Array(0);
  private files = new Uint32Array(0);
  private lens = new Uint32Array(0);
  private slots = new Int32Array(0);
  /** Per row: 1 when it has kept fields (a record on disk), 0 when held whole (a value in `whole`). */
  private keyed = new Uint8Array(0);
  /** Per row and time field: the time as milliseconds, NaN when it is kept as it is in `oddTimes`. */
  private times = new Float64Array(0);
  /** Per row and kept field other than the times: the value's code (ABSENT, OWN_ID, OTHER, EMPTY or a string's in `strings`). */
  private codes = new Uint32Array(0);
  private readonly strings = new KeptCodes();
  /** The values coded OTHER (not strings: a thread's metadata), by row × refWidth + the field's place. */
  private readonly others = new Map<number, unknown>();
  /**
   * The values of time fields that do not print back as they came (another format, not a
   * string), by row × time fields + the field's place: rare, so a slot for every row's times
   * was ~16 bytes a run of nothing (issue 91).
   */
  private readonly oddTimes = new Map<number, unknown>();
  /** The values of the rare records held whole (a shard from before paging, until the next snapshot writes it). */
  private readonly whole = new Map<number, object>();
  /** Per kept field, its place among the time fields, or -1. */
  private readonly timeAt: number[];
  private readonly timeCount: number;
  /** Per kept field, its place among the others (in `codes`), or -1 for a time. */
  private readonly refAt: number[];
  private readonly refWidth: number;
  /** The places in the collection's order, on the rows (collectionState.ts OrderedIds). */
  readonly positions: Positions;

  constructor(private readonly kept: readonly string[]) {
    let t = 0;
    this.timeAt = kept.map((field) => (TIME_FIELDS.includes(field) ? t++ : NONE));
    this.timeCount = t;
    let r = 0;
    this.refAt = this.timeAt.map((time) => (time === NONE ? r++ : NONE));
    this.refWidth = r;
    this.positions = new PackedSlots(this);
  }

  get size(): number {
    return this.ids.size;
  }

  get handles(): IdHandles {
    return this;
  }

  handleOf(id: string): number | undefined {
    return this.ids.handleOf(id);
  }

  idOf(handle: number): string {
    return this.ids.idOf(handle);
  }

  has(id: string): boolean {
    return this.ids.handleOf(id) !== undefined;
  }

  get(id: string): Kept | undefined {
    const row = this.rowFor(id);
    return row === undefined ? undefined : this.entryAt(row, id);
  }

  private rowFor(id: string): number | undefined {
    const handle = this.ids.handleOf(id);
    return handle === undefined ? undefined : this.rowOf[handle];
  }

  /**
   * Stores `entry` as the record's new version, in a row of its own (an entry read before of the
   * version it replaces still reads that version until the row is used again), and gives it its
   * version number.
   */
  set(id: string, entry: Kept): void {
    let handle = this.ids.handleOf(id);
    const previous = handle === undefined ? undefined : this.rowOf[handle]!;
    if (handle === undefined) {
      handle = this.ids.add(id);
      if (handle >= this.rowOf.length) this.rowOf = widen(this.rowOf, new Int32Array(Math.max(64, this.rowOf.length * 2)));
    }
    const row = this.free.pop() ?? this.grow();
    const version = ++versions;
    entry.version = version;
    this.seqs[row] = entry.seq;
    this.versionOf[row] = version;
    this.slots[row] = entry.slot;
    this.owners[row] = handle;
    this.place(row, entry, id);
    this.rowOf[handle] = row;
    if (previous !== undefined) this.release(previous);
  }

  /** Writes where the value of the record's version `entry` is now (a snapshot moved it), and its kept fields; its version stays. */
  relocated(id: string, entry: Kept): void {
    const row = this.rowFor(id);
    if (row === undefined || this.versionOf[row] !== entry.version) return;
    if (this.keyed[row] && entry.value === undefined && entry.file && !this.whole.has(row)) {
      // the version's kept fields are what they were (only a record held whole gains them here):
      // only where its value is moves. Coding them again cost a snapshot ~1 µs a record (issue 86)
      this.files[row] = entry.file;
      this.ats[row] = entry.at ?? 0;
      this.lens[row] = entry.len ?? 0;
      return;
    }
    this.place(row, entry, id);
  }

  delete(id: string): boolean {
    const handle = this.ids.handleOf(id);
    if (handle === undefined) return false;
    this.release(this.rowOf[handle]!);
    this.ids.remove(handle);
    return true;
  }

  *numbered(): IterableIterator<[number, Uint8Array | string]> {
    for (const handle of this.ids.handles()) yield [handle, this.ids.textOf(handle)];
  }

  /** The ids, by handle: not the order they were written in (the collection's order is in collectionState.ts). */
  *keys(): IterableIterator<string> {
    for (const handle of this.ids.handles()) yield this.ids.idOf(handle);
  }

  *values(): IterableIterator<Kept> {
    for (const handle of this.ids.handles()) yield this.entryAt(this.rowOf[handle]!);
  }

  *entries(): IterableIterator<[string, Kept]> {
    for (const handle of this.ids.handles()) {
      const id = this.ids.idOf(handle);
      yield [id, this.entryAt(this.rowOf[handle]!, id)];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, Kept]> {
    return this.entries();
  }

  /** The place in the order of the record whose id's handle is `handle`. */
  slotOf(handle: number): number {
    return this.slots[this.rowOf[handle]!]!;
  }

  setSlot(handle: number, slot: number): void {
    this.slots[this.rowOf[handle]!] = slot;
  }

  /** The entry of `row`; `id`, the record's id when the reader has it, is what a kept field holding it reads (not a string made again). */
  private entryAt(row: number, id?: string): Kept {
    return new PackedEntry(
      this,
      row,
      id,
      this.versionOf[row]!,
      this.seqs[row]!,
      this.slots[row]!,
      this.whole.get(row),
      this.files[row]!,
      this.ats[row]!,
      this.lens[row]!,
    );
  }

  /** The kept fields of `row` while it holds `version`, undefined for a record held whole. */
  keysOf(row: number, version: number, id?: string): unknown[] | undefined {
    this.check(row, version);
    return this.keyed[row] ? this.kept.map((_, at) => this.keyAt(row, at, id)) : undefined;
  }

  /** One kept field of `row` while it holds `version`. */
  keyOf(row: number, version: number, at: number, id?: string): unknown {
    this.check(row, version);
    return this.keyed[row] ? this.keyAt(row, at, id) : undefined;
  }

  /** An entry is read from its row while the row holds its version: one read after its record was written again would be a bug here. */
  private check(row: number, version: number): void {
    if (this.versionOf[row] !== version) throw new Error('a packed entry was read after its record changed');
  }

  private keyAt(row: number, at: number, id?: string): unknown {
    const t = this.timeAt[at]!;
    if (t !== NONE) {
      const ms = this.times[row * this.timeCount + t]!;
      return Number.isNaN(ms) ? this.oddTimes.get(row * this.timeCount + t) : isoOf(ms);
    }
    const place = row * this.refWidth + this.refAt[at]!;
    const code = this.codes[place]!;
    if (code === ABSENT) return undefined;
    if (code === OWN_ID) return id ?? this.ids.idOf(this.owners[row]!);
    if (code === EMPTY) return EMPTY_VALUE;
    return code === OTHER ? this.others.get(place) : this.strings.valueOf(code);
  }

  /** The code of a kept field's `key` in the record `id`, at `place` in `codes` (a value not a string kept beside). */
  private codeOf(key: unknown, id: string, place: number): number {
    if (key === undefined) return ABSENT;
    if (typeof key !== 'string') {
      if (key !== null && typeof key === 'object' && isEmptyObject(key)) return EMPTY;
      this.others.set(place, key);
      return OTHER;
    }
    return key === id ? OWN_ID : this.strings.name(key);
  }

  /** What the code `was` at `place` held, let go once `now` replaced it there. */
  private forget(was: number, now: number, place: number): void {
    if (was === OTHER) {
      if (now !== OTHER) this.others.delete(place);
    } else this.strings.release(was);
  }

  private place(row: number, entry: Kept, id: string): void {
    this.files[row] = entry.file ?? 0;
    this.ats[row] = entry.at ?? 0;
    this.lens[row] = entry.len ?? 0;
    if (entry.value !== undefined) this.whole.set(row, entry.value);
    else this.whole.delete(row);
    const keys = entry.keys;
    this.keyed[row] = keys ? 1 : 0;
    const width = this.kept.length;
    for (let at = 0; at < width; at += 1) {
      const key = keys?.[at];
      const t = this.timeAt[at]!;
      if (t === NONE) {
        const place = row * this.refWidth + this.refAt[at]!;
        const was = this.codes[place]!;
        const now = this.codeOf(key, id, place);
        this.codes[place] = now;
        this.forget(was, now, place);
        continue;
      }
      const ms = typeof key === 'string' ? msOfIso(key) : NaN;
      this.times[row * this.timeCount + t] = ms;
      if (Number.isNaN(ms) && key !== undefined) this.oddTimes.set(row * this.timeCount + t, key);
      else if (this.oddTimes.size) this.oddTimes.delete(row * this.timeCount + t);
    }
  }

  private release(row: number): void {
    this.whole.delete(row);
    for (let place = row * this.refWidth; place < (row + 1) * this.refWidth; place += 1) {
      this.forget(this.codes[place]!, ABSENT, place);
      this.codes[place] = ABSENT;
    }
    if (this.oddTimes.size) for (let t = 0; t < this.timeCount; t += 1) this.oddTimes.delete(row * this.timeCount + t);
    this.versionOf[row] = 0;
    this.free.push(row);
  }

  /** A new row at the end, the columns doubled when full. */
  private grow(): number {
    if (this.used === this.capacity) {
      const capacity = Math.max(64, this.capacity * 2);
      this.seqs = widen(this.seqs, new Float64Array(capacity));
      this.ats = widen(this.ats, new Float64Array(capacity));
      this.versionOf = widen(this.versionOf, new Float64Array(capacity));
      this.files = widen(this.files, new Uint32Array(capacity));
      this.lens = widen(this.lens, new Uint32Array(capacity));
      this.slots = widen(this.slots, new Int32Array(capacity));
      this.owners = widen(this.owners, new Int32Array(capacity));
      this.keyed = widen(this.keyed, new Uint8Array(capacity));
      this.times = widen(this.times, new Float64Array(capacity * this.timeCount));
      this.codes = widen(this.codes, new Uint32Array(capacity * this.refWidth));
      this.capacity = capacity;
    }
    return this.used++;
  }
}

function widen<T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

/**
 * A record's entry as read from its row: the numbers copied, the kept fields read from the row
 * when asked (a scan asks for one or two of them), while the row still holds this version.
 */
export class PackedEntry implements Kept {
  file?: number;
  at?: number;
  len?: number;
  private keysRead: unknown[] | undefined | null = null;
  constructor(
    private readonly table: PackedRecords,
    private readonly row: number,
    /** The record's id, when the reader had it. */
    private readonly id: string | undefined,
    readonly version: number,
    readonly seq: number,
    public slot: number,
    public value: object | undefined,
    file: number,
    at: number,
    len: number,
  ) {
    if (file) {
      this.file = file;
      this.at = at;
      this.len = len;
    }
  }

  get keys(): unknown[] | undefined {
    if (this.keysRead === null) this.keysRead = this.table.keysOf(this.row, this.version, this.id);
    return this.keysRead;
  }

  set keys(keys: unknown[] | undefined) {
    this.keysRead = keys;
  }

  /** One kept field (`at`: its place among the kept fields), without reading the others. */
  keyAt(at: number): unknown {
    return this.keysRead ? this.keysRead[at] : this.table.keyOf(this.row, this.version, at, this.id);
  }
}

/** The places in the collection's order, held on the rows; keyed by the ids' handles, as the order holds them. */
class PackedSlots implements Positions {
  size = 0;
  constructor(private readonly records: PackedRecords) {}
  has(handle: number): boolean {
    return this.records.slotOf(handle) >= 0;
  }
  get(handle: number): number | undefined {
    const slot = this.records.slotOf(handle);
    return slot >= 0 ? slot : undefined;
  }
  set(handle: number, at: number): void {
    if (this.records.slotOf(handle) < 0) this.size += 1;
    this.records.setSlot(handle, at);
  }
  delete(handle: number): void {
    if (this.records.slotOf(handle) < 0) return;
    this.records.setSlot(handle, NONE);
    this.size -= 1;
  }
}
