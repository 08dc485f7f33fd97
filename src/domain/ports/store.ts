// The storage contract the repositories are built on: the embedded store (journalStore.ts)
// keeps the working set in memory and journals each write; PostgreSQL (pgStore.ts) keeps each
// collection in a table; every call is asynchronous for it. Who may see a Collection<T>: the
// repositories' implementations in adapters/embedded/ and adapters/postgres/, and the
// composition root. A domain service takes its aggregate's repository port instead
// (test/architecture/layers.test.ts, whose shrinking list names the files that still take a
// collection, each with why); this file leaves the domain with the last of them.

export interface ListOptions<T> {
  /** Exact match on indexed fields (declared when the collection is opened). */
  where?: Record<string, string>;
  filter?: (value: T) => boolean;
  /**
   * Object fields that must contain these top-level entries (equal values; see
   * containment.ts). Declared in CollectionOptions.containment to be served by an index.
   */
  contains?: Record<string, Record<string, unknown>>;
  /** Newest first (reverse insertion order) when true; with `orderBy`, that field descending. */
  reverse?: boolean;
  /**
   * Sorted by this top-level string field (code-unit order, insertion order among equals)
   * instead of insertion order. Not with `filter` or `contains`; on PostgreSQL the field is
   * one of the collection's columns (pgTables.ts).
   */
  orderBy?: string;
  /** With `orderBy`: only the records whose field is below this value (code-unit order). */
  below?: string;
  offset?: number;
  limit?: number;
  /**
   * The top-level fields the caller reads of each record, `filter` included: the values handed
   * to `filter` and given back may hold only these (absent ones stay absent), or more. The
   * embedded store keeps some fields of its paged collections in memory (pagedCollections.ts)
   * and answers from them without reading the records from disk.
   */
  fields?: readonly string[];
}

export interface Collection<T extends object> {
  readonly name: string;
  get(id: string): Promise<T | undefined>;
  /** The records of `ids`, in their order (undefined where there is none): one read, not one per id. */
  getMany(ids: string[]): Promise<(T | undefined)[]>;
  /** Stores a new record; resolves false (and writes nothing) when the id exists. */
  insert(id: string, value: T): Promise<boolean>;
  put(id: string, value: T): Promise<void>;
  /**
   * Atomic read-modify-write: `change` sees the current value and returns the next one,
   * or undefined to leave it untouched. Resolves to the stored value after the call.
   */
  update(id: string, change: (current: T) => T | undefined): Promise<T | undefined>;
  delete(id: string): Promise<boolean>;
  list(options?: ListOptions<T>): Promise<T[]>;
  count(options?: Pick<ListOptions<T>, 'where' | 'filter' | 'contains' | 'fields'>): Promise<number>;
}

export interface CollectionOptions {
  /** Fields (top-level, string-valued) kept in an index for `where` look-ups. */
  indexes?: string[];
  /** Object fields searched by containment (`contains`); PostgreSQL keeps a GIN index on each. */
  containment?: string[];
}

/** Stores a record whole (a new one, or over the one stored). */
export interface PutOp {
  collection: string;
  id: string;
  value: object;
  /**
   * The value's JSON text (`JSON.stringify(value)`), when the writer made it already: a run
   * worker's write, which reaches the main thread as a copy of its own (issues 86, 87). The store
   * writes this text and does not make it again; the embedded store keeps that copy frozen as
   * it came rather than copying it again, so only a writer that gives the value up sets it.
   */
  json?: string;
}

export interface DeleteOp {
  collection: string;
  id: string;
  delete: true;
}

/**
 * Sets some top-level fields of a record in place: on the record as it stands when the write
 * applies, not on a copy read before it (which another write may have changed since: those
 * changes stay); nothing when there is none, so a record deleted meanwhile stays deleted.
 * `whileAny`: other values for some fields, set instead when, as the write applies, a record of
 * another collection matches `whileAny.where` (exact values of indexed fields) — a thread's
 * status while runs are pending on it, counted at the write, not at a read before it. In a
 * write of several ops, the record is set as the ops before it leave it; `whileAny` reads the
 * other collection as it was before the write.
 */
export interface SetOp {
  collection: string;
  id: string;
  set: Record<string, unknown>;
  whileAny?: { collection: string; where: Record<string, string>; set: Record<string, unknown> };
}

export type WriteOp = PutOp | DeleteOp | SetOp;

/** The fields a SetOp leaves on a record, given whether `whileAny` matched. */
export function fieldsSet(op: SetOp, matched: boolean): Record<string, unknown> {
  return matched && op.whileAny ? { ...op.set, ...op.whileAny.set } : op.set;
}

export interface Store {
  collection<T extends object>(name: string, options?: CollectionOptions): Collection<T>;
  /** Applies several writes atomically: after a crash either all or none are visible. */
  write(ops: WriteOp[]): Promise<void>;
  /** Names of the collections opened or loaded so far (metrics). */
  collectionNames(): string[];
  /** Rejects when the store cannot be reached now (GET /ok?check_db=1); a store held in process always answers. */
  ping(): Promise<void>;
  /** Writes every pending snapshot so the journal can be dropped; used on shutdown. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
