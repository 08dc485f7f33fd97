// One collection of the embedded store (journalStore.ts) as the repositories see it: reads from
// what memory holds of its records (collectionState.ts), writes through the store's journal.
// A grouped collection's records (recordGroups.ts) are read in the group a look-up names; a
// scan that names none walks every group.
import { containsAll } from '../../domain/ports/containment.ts';
import type { Collection, ListOptions, WriteOp } from '../../domain/ports/store.ts';
import type { OrderedIds } from './orderedIds.ts';
import { keptFields, keptFieldsOf, type CollectionState, type Kept } from './collectionState.ts';
import type { RecordSet } from './recordGroups.ts';

/** What a collection asks of its store. */
export interface CollectionStore {
  /** `created`: the ops' records are new ones no reader has yet (JournalStore.apply). */
  apply(ops: WriteOp[], created?: boolean): void;
  /** Before a paged collection's records are loaded: the records holding a value few hold (journalStore.ts), or undefined. */
  fewBefore(name: string, field: string, value: string): object[] | undefined;
}

export class JournalCollection<T extends object> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly set: RecordSet,
    private readonly store: CollectionStore,
  ) {}

  private read(id: string): T | undefined {
    const state = this.set.holderOfId(id);
    const entry = state.records.get(id);
    return entry && (state.valueOf(entry) as T);
  }

  /** The record as memory holds it now, once the collection is loaded (JournalStore.apply's in-place writes). */
  readLoaded(id: string): T | undefined {
    return this.read(id);
  }

  async get(id: string): Promise<T | undefined> {
    if (this.set.load) await this.set.load();
    return this.read(id);
  }

  async getMany(ids: string[]): Promise<(T | undefined)[]> {
    if (this.set.load) await this.set.load();
    return ids.map((id) => this.read(id));
  }

  async insert(id: string, value: T): Promise<boolean> {
    if (this.set.load) await this.set.load();
    if (this.set.entry(id)) return false;
    this.store.apply([{ collection: this.name, id, value }], true);
    return true;
  }

  async put(id: string, value: T): Promise<void> {
    if (this.set.load) await this.set.load();
    this.store.apply([{ collection: this.name, id, value }]);
  }

  async update(id: string, change: (current: T) => T | undefined): Promise<T | undefined> {
    if (this.set.load) await this.set.load();
    const current = this.read(id);
    if (current === undefined) return undefined;
    const next = change(current);
    if (next === undefined || next === current) return current;
    this.store.apply([{ collection: this.name, id, value: next }]);
    return next;
  }

  async delete(id: string): Promise<boolean> {
    if (this.set.load) await this.set.load();
    if (!this.set.entry(id)) return false;
    this.store.apply([{ collection: this.name, id, delete: true }]);
    return true;
  }

  async list(options: ListOptions<T> = {}): Promise<T[]> {
    if (this.set.load) {
      // a look-up of a value few records hold is answered without the collection's records (run recovery at a start)
      const where = Object.entries(options.where ?? {});
      const few = where.length === 1 && Object.keys(options).length === 1 ? this.store.fewBefore(this.name, where[0]![0], where[0]![1]) : undefined;
      if (few) return few as T[];
      await this.set.load();
    }
    const offset = options.offset ?? 0;
    const limit = options.limit ?? Infinity;
    if (options.below !== undefined && options.orderBy === undefined) throw new Error(`collection ${this.name}: below needs orderBy`);
    const holder = this.set.holderOf(options.where);
    if (!holder) return this.listAcross(options);
    const value = this.reader(holder, options.fields);
    // the first by the order alone (a thread's newest checkpoint, at every run): one pass, no sort
    if (options.orderBy !== undefined && limit === 1 && offset === 0) {
      const first = holder.ascendingBy(options.orderBy)
        ? firstOfAscending(holder, scan(holder, options, value), options.below, options.orderBy)
        : firstInOrder(holder, scan(holder, { ...options, reverse: false }, value), options, options.orderBy);
      return first ? [value(first)] : [];
    }
    if (options.orderBy !== undefined)
      return this.sorted(holder, [...scan(holder, { ...options, reverse: false }, value)], options, options.orderBy)
        .slice(offset, offset + limit)
        .map(value);
    const out: T[] = [];
    let skipped = 0;
    for (const entry of scan(holder, options, value)) {
      if (skipped < offset) {
        skipped += 1;
        continue;
      }
      if (out.length >= limit) break;
      out.push(value(entry));
    }
    return out;
  }

  /**
   * A list no group holds alone: each group's matching records, in the collection's order (by
   * seq: a record keeps the seq it was first written with, as it keeps its place), read as each
   * group is held; rare (retention, a history across threads), so a whole pass.
   */
  private listAcross(options: ListOptions<T>): T[] {
    const found: { entry: Kept; value: T; key: string }[] = [];
    for (const part of this.set.parts()) {
      const value = this.reader(part, options.fields);
      for (const entry of scan(part, { ...options, reverse: false }, value))
        found.push({ entry, value: value(entry), key: options.orderBy === undefined ? '' : String(part.fieldOf(entry, options.orderBy) ?? '') });
    }
    found.sort((a, b) => a.entry.seq - b.entry.seq);
    const below = options.below;
    const kept = below === undefined ? found : found.filter((item) => item.key < below);
    if (options.orderBy !== undefined) kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    if (options.reverse) kept.reverse();
    const offset = options.offset ?? 0;
    return kept.slice(offset, offset + (options.limit ?? Infinity)).map((item) => item.value);
  }

  /** The matching records sorted by `field` (a stable sort: insertion order among equals); a paged record is not read for it. */
  private sorted(state: CollectionState, entries: Kept[], options: ListOptions<T>, field: string): Kept[] {
    const key = (entry: Kept) => String(state.fieldOf(entry, field) ?? '');
    const below = options.below;
    const all = entries.map((entry) => ({ entry, key: key(entry) })).filter((item) => below === undefined || item.key < below);
    const ascending = all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((item) => item.entry);
    return options.reverse ? ascending.reverse() : ascending;
  }

  async count(options: Pick<ListOptions<T>, 'where' | 'filter' | 'contains' | 'fields'> = {}): Promise<number> {
    if (this.set.load) await this.set.load();
    return this.countLoaded(options);
  }

  /** `count`, once the collection is loaded: at once, with nothing written in between (JournalStore.apply's in-place writes). */
  countLoaded(options: Pick<ListOptions<T>, 'where' | 'filter' | 'contains' | 'fields'>): number {
    const where = Object.entries(options.where ?? {});
    const plain = !options.filter && !Object.keys(options.contains ?? {}).length;
    if (where.length === 0 && plain) return this.set.size;
    const holder = this.set.holderOf(options.where);
    // one indexed field and nothing else to check: the index knows how many it holds
    if (holder && where.length === 1 && plain) {
      const ids = holder.idsWhere(where[0]![0], where[0]![1]);
      if (ids !== undefined) return ids.size;
    }
    let n = 0;
    for (const part of holder ? [holder] : this.set.parts()) for (const _ of scan(part, options, this.reader(part, options.fields))) n += 1;
    return n;
  }

  /**
   * Whether any record matches `where` (a write's `whileAny`: is a run pending on the thread?),
   * once the collection is loaded. Stops at the first match, and walks newest first: what a
   * write waits on was mostly written last (a thread's pending runs are its newest). Counted in
   * full (countLoaded), a one-thread queue walked every pending run at each of its runs' ends.
   */
  anyLoaded(where: Record<string, string>): boolean {
    const options: ListOptions<T> = { where, reverse: true };
    const holder = this.set.holderOf(where);
    for (const part of holder ? [holder] : this.set.parts()) for (const _ of scan(part, options, this.reader(part, undefined))) return true;
    return false;
  }

  /** How a record is read for a caller reading `fields` only: from what memory keeps of it when that has them all. */
  private reader(state: CollectionState, fields: readonly string[] | undefined): (entry: Kept) => T {
    const kept = state.paging?.kept;
    if (fields && kept && fields.every((field) => kept.includes(field))) {
      const at = fields.map((field) => kept.indexOf(field));
      return (entry) => {
        // a packed row is read field by field: a page of ids reads the ids alone
        if (entry.keyAt && entry.value === undefined) return keptFieldsOf(fields, at, entry.keyAt.bind(entry)) as T;
        return entry.keys ? (keptFields(fields, at, entry.keys) as T) : (state.valueOf(entry) as T);
      };
    }
    return (entry) => state.valueOf(entry) as T;
  }
}

/**
 * What `sorted(…)[0]` is, in one pass: the least key (the greatest with `reverse`) below
 * `below`; among equal keys the first scanned (the last with `reverse`, as the reversed stable
 * sort puts it).
 */
function firstInOrder<T>(state: CollectionState, entries: Iterable<Kept>, options: ListOptions<T>, field: string): Kept | undefined {
  const below = options.below;
  let best: Kept | undefined;
  let bestKey = '';
  for (const entry of entries) {
    const key = state.orderKey(entry, field);
    if (below !== undefined && !(key < below)) continue;
    if (best === undefined || (options.reverse ? key >= bestKey : key < bestKey)) {
      best = entry;
      bestKey = key;
    }
  }
  return best;
}

/**
 * firstInOrder's answer where the records are in ascending order of `field` (ascendingBy),
 * scanned in the direction asked: the first below `below`. The first forward is the least key
 * and among equals the first; the first backward the greatest and among equals the last
 * forward, as the reversed stable sort puts it. Only records at or above `below` are passed by.
 */
function firstOfAscending(state: CollectionState, entries: Iterable<Kept>, below: string | undefined, field: string): Kept | undefined {
  for (const entry of entries) if (below === undefined || state.orderKey(entry, field) < below) return entry;
  return undefined;
}

/** The matching records' entries of one state in order; a paged record is read only when a filter needs more than memory keeps of it. */
function* scan<T>(state: CollectionState, options: ListOptions<T>, reader: (entry: Kept) => T): Generator<Kept> {
  const where = Object.entries(options.where ?? {});
  let ids: OrderedIds | undefined;
  const rest: [string, string][] = [];
  // the smallest of the indexed sets is walked; the other fields are checked on each record
  let walked: string | undefined;
  for (const [field, value] of where) {
    const indexed = state.idsWhere(field, value);
    if (indexed !== undefined && (ids === undefined || indexed.size < ids.size)) {
      if (walked !== undefined) rest.push([walked, options.where![walked]!]);
      ids = indexed;
      walked = field;
    } else rest.push([field, value]);
  }
  const order = ids ?? state.order;
  const records = state.records;
  const filter = options.filter;
  const contains = Object.entries(options.contains ?? {});
  const value = filter && reader;
  for (const id of options.reverse ? order.backward() : order.forward()) {
    const entry = records.get(id);
    if (entry === undefined) continue;
    if (rest.length && rest.some(([field, v]) => state.fieldOf(entry, field) !== v)) continue;
    if (contains.length && !contains.every(([field, wanted]) => containsAll(state.fieldOf(entry, field), wanted))) continue;
    if (value && !filter(value(entry))) continue;
    yield entry;
  }
}
