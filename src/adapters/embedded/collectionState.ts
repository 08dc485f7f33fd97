// What the embedded store (journalStore.ts) holds of one collection's records in memory: each
// record's entry by id (its value, or where a paged value is on disk: pagedValues.ts), the
// collection's insertion order and its indexes. A grouped collection (recordGroups.ts) holds
// one of these per group of records, loaded while the group is in use.
import { OrderedIds, type Held, type IdHandles, type Positions } from './orderedIds.ts';
import { cacheCost, type PagedFiles, type ValueCache, type Location } from './pagedValues.ts';
import type { Kept } from './keptEntry.ts';
import type { KeptStrings } from './keptStrings.ts';
import { PackedRecords, cacheKeyOf, type RecordMap } from './packedRecords.ts';
import { deepFreeze, frozenCopy } from '../../domain/freeze.ts';

export const EMPTY = new OrderedIds();

/** The kept fields of a paged record, in the order of `kept` (undefined where absent), frozen. */
export function keysOf(kept: readonly string[], value: object, strings: KeptStrings): unknown[] {
  // one array, filled by index: taken at every write of a paged record (issue 91)
  const keys: unknown[] = new Array(kept.length);
  for (let at = 0; at < kept.length; at += 1) keys[at] = keptKey((value as Record<string, unknown>)[kept[at]!], strings);
  return keys;
}

/** A kept field's value as memory keeps it: a string shared, anything else a frozen copy of its own. */
function keptKey(key: unknown, strings: KeptStrings): unknown {
  return typeof key === 'string' ? strings.share(key) : frozenCopy(key);
}

/** Kept fields' values as memory keeps them: strings shared, anything else a frozen copy of its own (the value parsed to find them is let go). */
export function keptKeys(keys: readonly unknown[], strings: KeptStrings): unknown[] {
  return keys.map((key) => keptKey(key, strings));
}

/** The record as a caller reading only `fields` sees it, built from its kept fields (`at`: each field's place among them). */
export function keptFields(fields: readonly string[], at: readonly number[], keys: readonly unknown[]): Record<string, unknown> {
  return keptFieldsOf(fields, at, (place) => keys[place]);
}

/** The same, each kept field read by its place (a packed row's: packedRecords.ts). */
export function keptFieldsOf(fields: readonly string[], at: readonly number[], keyAt: (place: number) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    const key = keyAt(at[i]!);
    if (key !== undefined) out[field] = key;
  });
  return out;
}

export type { Kept } from './keptEntry.ts';

/** A record held whole in memory, not (yet) on disk: no place, not even empty fields for one (~24 bytes a record of the collections held whole). */
export function wholeEntry(seq: number, value: object): Kept {
  return { seq, value, slot: -1 };
}

/** Where a record on disk is (`entry.file` set). */
export const placeOf = (entry: Kept) => entry as Location;

/** What a paged collection reads its values through. */
export interface Paging {
  kept: readonly string[];
  files: PagedFiles;
  cache: ValueCache<Kept | number>;
}

/**
 * The places in the collection's order, kept on the records' entries rather than in a map of
 * their own beside the map by id (~30 bytes a record: ~3 MB of a server holding 100,000 threads).
 */
class EntrySlots implements Positions {
  size = 0;
  constructor(private readonly records: RecordMap) {}
  // the order of a collection not packed holds the ids themselves
  has(id: Held): boolean {
    return (this.records.get(id as string)?.slot ?? -1) >= 0;
  }
  get(id: Held): number | undefined {
    const slot = this.records.get(id as string)?.slot ?? -1;
    return slot >= 0 ? slot : undefined;
  }
  set(id: Held, at: number): void {
    const entry = this.records.get(id as string)!;
    if (entry.slot < 0) this.size += 1;
    entry.slot = at;
  }
  delete(id: Held): void {
    const entry = this.records.get(id as string);
    if (!entry || entry.slot < 0) return;
    entry.slot = -1;
    this.size -= 1;
  }
}

/** One collection's records, or one group's (recordGroups.ts); a RecordSet of its own. */
export class CollectionState {
  /** The entries by id: packed in rows for a paged collection not grouped (runs, threads: packedRecords.ts). */
  readonly records: RecordMap;
  /** Set until the records of a paged collection are loaded after the start: begins loading them, and every request on it waits for it. */
  load: (() => Promise<void>) | null = null;
  /** Insertion order, walkable from the newest end without copying. */
  readonly order: OrderedIds;
  /** The numbers the order and the indexes hold for the ids of packed records (else the ids). */
  private readonly handles: IdHandles | null;
  private readonly indexes = new Map<string, Map<string, OrderedIds>>();
  /** Per indexed field whose index holds only some values, those values (the others are found by a scan). */
  private readonly indexedOnly = new Map<string, readonly string[]>();

  readonly groups = null;

  /**
   * Per field a list asked the first record of by its order (firstInOrder, a thread's newest
   * checkpoint at every run): whether the records' order (and each index's) is also ascending by
   * it, with the key of the last record added, kept as records come and go; 'unordered' once a
   * record broke it. Checkpoint ids are time-ordered and written in that order but for a late
   * write (a cancelled run's), so the newest is found at the end, not by a pass over them all.
   */
  private readonly ascending = new Map<string, { last: string } | 'unordered'>();
  /** False once an update moved a record to the end of an index (a changed indexed field): the indexes' orders are not the records'. */
  private indexesInOrder = true;
  /** set's scratch: the replaced version's indexed fields and order keys (what a write before left there stays: a few strings). */
  private readonly indexedBefore: unknown[] = [];
  private readonly orderedBefore: string[] = [];

  constructor(
    readonly paging: Paging | null,
    packed = false,
  ) {
    const records: RecordMap = packed && paging ? new PackedRecords(paging.kept) : new Map<string, Kept>();
    this.records = records;
    this.handles = records.handles ?? null;
    this.order = new OrderedIds(records.positions ?? new EntrySlots(records), this.handles);
  }

  get size(): number {
    return this.records.size;
  }

  entry(id: string): Kept | undefined {
    return this.records.get(id);
  }

  holderOfId(): CollectionState {
    return this;
  }

  heldHolderOfId(): CollectionState {
    return this;
  }

  holderOf(): CollectionState {
    return this;
  }

  *parts(): Iterable<CollectionState> {
    yield this;
  }

  /** The record's value: in memory, in the cache, or read from disk (and cached). */
  valueOf(entry: Kept): object {
    if (entry.value !== undefined) return entry.value;
    const paging = this.paging!;
    const key = cacheKeyOf(entry);
    const cached = paging.cache.get(key);
    if (cached) return cached;
    const where = placeOf(entry);
    const value = deepFreeze(JSON.parse(paging.files.read(where).toString('utf8')) as object);
    paging.cache.put(key, value, cacheCost(value));
    return value;
  }

  /** A top-level field of the record, from what memory keeps of it when it can. */
  fieldOf(entry: Kept, field: string): unknown {
    if (entry.keyAt) {
      const at = this.paging!.kept.indexOf(field);
      if (at >= 0 && entry.value === undefined) return entry.keyAt(at);
    } else if (entry.keys !== undefined) {
      const at = this.paging!.kept.indexOf(field);
      if (at >= 0) return entry.keys[at];
    }
    return (this.valueOf(entry) as Record<string, unknown>)[field];
  }

  set(id: string, entry: Kept): void {
    const previous = this.records.get(id);
    // what the version replaced held, read before it is replaced (a packed row is let go then);
    // into arrays of this state's own, not new ones at each write (issue 91: every write of a run)
    // (overwritten, never cut back: setting a length is a call into the runtime)
    const before = this.indexedBefore;
    const orderedBefore = this.orderedBefore;
    if (previous) {
      let at = 0;
      for (const field of this.indexes.keys()) before[at++] = this.fieldOf(previous, field);
      at = 0;
      for (const field of this.ascending.keys()) orderedBefore[at++] = this.orderKey(previous, field);
    }
    entry.slot = previous ? previous.slot : -1; // a new version keeps the place of the one it replaces
    this.records.set(id, entry);
    this.order.add(id);
    if (entry.file) this.paging!.files.ref(entry.file);
    // Only fields whose value changed are re-indexed: an index keeps insertion order, so
    // `where` + `reverse` lists stay newest-first by creation when a record is updated.
    let i = 0;
    for (const [field, index] of this.indexes) {
      const was = previous ? before[i++] : undefined;
      const after = this.fieldOf(entry, field);
      if (previous && was === after) continue;
      if (previous) this.indexesInOrder = false;
      if (this.holdsInIndex(field, was)) dropFromIndex(index, was, id);
      if (this.holdsInIndex(field, after)) addToIndex(index, after, id, this.handles);
    }
    let j = 0;
    for (const [field, state] of this.ascending) {
      const keyBefore = previous ? orderedBefore[j++] : undefined;
      if (state === 'unordered') continue;
      const key = this.orderKey(entry, field);
      if (previous) {
        if (key !== keyBefore) this.ascending.set(field, 'unordered');
      } else if (key >= state.last) state.last = key;
      else this.ascending.set(field, 'unordered');
    }
    if (previous) this.release(previous);
  }

  /**
   * Whether the records are in ascending order of `field` (equal keys allowed), in the
   * collection's order and in each index's; only for a field memory keeps. The first ask is a
   * pass over the records; later ones are answered from what each write kept.
   */
  ascendingBy(field: string): boolean {
    if (!this.indexesInOrder || (this.paging && !this.paging.kept.includes(field))) return false;
    let state = this.ascending.get(field);
    if (state === undefined) {
      let last = '';
      state = { last };
      for (const id of this.order.forward()) {
        const key = this.orderKey(this.records.get(id)!, field);
        if (key < last) {
          state = 'unordered';
          break;
        }
        last = key;
      }
      if (state !== 'unordered') state.last = last;
      this.ascending.set(field, state);
    }
    return state !== 'unordered';
  }

  /** The key a record is ordered by (ListOptions.orderBy). */
  orderKey(entry: Kept, field: string): string {
    return String(this.fieldOf(entry, field) ?? '');
  }

  remove(id: string): void {
    const previous = this.records.get(id);
    if (!previous) return;
    // a removal keeps an order ascending; one that was not may be now: asked again, it is found again
    for (const [field, state] of this.ascending) if (state === 'unordered') this.ascending.delete(field);
    this.unindex(id, previous);
    this.order.delete(id); // before the entry goes: the entry holds its place
    this.records.delete(id);
    this.release(previous);
  }

  /** A paged record's value, written again elsewhere (a snapshot), is read from there from now on. */
  relocate(id: string, entry: Kept, where: Location, strings: KeptStrings): void {
    const paging = this.paging!;
    paging.files.ref(where.file);
    if (entry.file) paging.files.unref(entry.file);
    else {
      // held whole until now (loaded from a shard written before paging): the cache takes it
      entry.keys = keysOf(paging.kept, entry.value!, strings);
      paging.cache.put(cacheKeyOf(entry), entry.value!, cacheCost(entry.value!));
      entry.value = undefined;
    }
    entry.file = where.file;
    entry.at = where.at;
    entry.len = where.len;
    this.records.relocated?.(id, entry);
  }

  /** Lets go of every record (a group no longer held in memory: recordGroups.ts); the state is not used again. */
  releaseAll(): void {
    for (const entry of this.records.values()) this.release(entry);
  }

  /** Lets go of the values cached of its records, their files still held open (a group set aside: recordGroups.ts); the state is not used again. */
  releaseCached(): void {
    if (this.paging) for (const entry of this.records.values()) this.paging.cache.drop(cacheKeyOf(entry));
  }

  /** What a replaced or removed version of a record held on to. */
  private release(entry: Kept): void {
    if (!this.paging) return;
    this.paging.cache.drop(cacheKeyOf(entry));
    if (entry.file) this.paging.files.unref(entry.file);
  }

  /**
   * Indexes `field`; with `only`, for those values alone: a value most records hold (a run's
   * `success`) is found by a scan of the kept fields instead of an index holding most ids
   * (~40 bytes a record, issue 91), while the few (`pending`, `running`) are looked up.
   */
  addIndex(field: string, only?: readonly string[]): void {
    if (this.indexes.has(field)) return;
    const index = new Map<string, OrderedIds>();
    this.indexes.set(field, index);
    if (only) this.indexedOnly.set(field, only);
    // in the records' order (a packed collection's records are not kept in it)
    for (const id of this.order.forward()) {
      const key = this.fieldOf(this.records.get(id)!, field);
      if (this.holdsInIndex(field, key)) addToIndex(index, key, id, this.handles);
    }
  }

  /** The ids having `value` in an indexed field; undefined when the field is not indexed, or not for this value. */
  idsWhere(field: string, value: string): OrderedIds | undefined {
    const index = this.indexes.get(field);
    if (!index || !this.holdsInIndex(field, value)) return undefined;
    return index.get(value) ?? EMPTY;
  }

  /** Whether the index of `field` holds the records having `key`. */
  private holdsInIndex(field: string, key: unknown): key is string {
    if (typeof key !== 'string') return false;
    const only = this.indexedOnly.get(field);
    return only === undefined || only.includes(key);
  }

  private unindex(id: string, entry: Kept): void {
    for (const [field, index] of this.indexes) {
      const key = this.fieldOf(entry, field);
      if (this.holdsInIndex(field, key)) dropFromIndex(index, key, id);
    }
  }
}

function addToIndex(index: Map<string, OrderedIds>, key: string, id: string, handles: IdHandles | null): void {
  let ids = index.get(key);
  if (!ids) index.set(key, (ids = new OrderedIds(null, handles)));
  ids.add(id);
}

function dropFromIndex(index: Map<string, OrderedIds>, key: string, id: string): void {
  const ids = index.get(key);
  if (!ids) return;
  ids.delete(id);
  if (ids.size === 0) index.delete(key); // values that come and go (thread ids) must not pile up
}
