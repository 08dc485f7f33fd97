// The embedded default store. Every acknowledged write is one line appended to a journal
// (a single write(2), so it survives kill -9 of the process); the records live in memory
// and are snapshotted in the background into lowdb files, one per shard of a collection.
// A write therefore costs the same whatever the size of the data set: nothing is
// rewritten on the request path. On start the shards are loaded and the journal replayed.
import fs from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Collection, CollectionOptions, ListOptions, Store, WriteOp } from './types.ts';
import { OrderedIds } from './orderedIds.ts';
import { deepFreeze } from './freeze.ts';

const EMPTY = new OrderedIds();

interface Entry {
  seq: number;
  value: object;
}
type ShardFile = { records: Record<string, [number, object]> };
/** One journal line: a batch of puts `[collection, id, seq, value]` and deletes `[collection, id]`. */
type JournalOp = [string, string, number, object] | [string, string];

export interface JournalStoreOptions {
  /** Directory for journal and shards; null keeps everything in memory (mock mode, tests). */
  dataDir: string | null;
  shards?: number;
  /** Journal size that triggers a background snapshot. */
  compactBytes?: number;
  /** fsync each journal write as well (survives power loss, not only process death). */
  fsync?: boolean;
}

const META_FILE = 'store.json';

export async function openJournalStore(options: JournalStoreOptions): Promise<JournalStore> {
  const store = new JournalStore(options);
  await store.load();
  return store;
}

export class JournalStore implements Store {
  private readonly dataDir: string | null;
  private shardCount: number;
  private readonly compactBytes: number;
  private readonly fsyncEach: boolean;
  private readonly states = new Map<string, CollectionState>();
  private readonly handles = new Map<string, JournalCollection<object>>();
  private seq = 0;
  private fd: number | null = null;
  private segment = 0;
  private segmentBytes = 0;
  private dirty = new Set<string>();
  private compacting: Promise<void> | null = null;
  private closed = false;

  constructor(options: JournalStoreOptions) {
    this.dataDir = options.dataDir;
    this.shardCount = options.shards ?? 64;
    this.compactBytes = options.compactBytes ?? 32 * 1024 * 1024;
    this.fsyncEach = options.fsync ?? false;
  }

  async load(): Promise<void> {
    if (!this.dataDir) return;
    fs.mkdirSync(path.join(this.dataDir, 'journal'), { recursive: true });
    fs.mkdirSync(path.join(this.dataDir, 'collections'), { recursive: true });
    const metaPath = path.join(this.dataDir, META_FILE);
    if (fs.existsSync(metaPath)) {
      this.shardCount = JSON.parse(fs.readFileSync(metaPath, 'utf8')).shards;
    } else {
      fs.writeFileSync(metaPath, JSON.stringify({ version: 1, shards: this.shardCount }));
    }
    const loaded = new Map<string, Map<string, Entry>>();
    const bucket = (name: string) => {
      let m = loaded.get(name);
      if (!m) loaded.set(name, (m = new Map()));
      return m;
    };
    const collectionsDir = path.join(this.dataDir, 'collections');
    for (const name of fs.readdirSync(collectionsDir)) {
      const records = bucket(name);
      for (const file of fs.readdirSync(path.join(collectionsDir, name))) {
        if (!file.endsWith('.json')) continue;
        const db = new Low<ShardFile>(new JSONFile(path.join(collectionsDir, name, file)), { records: {} });
        await db.read();
        for (const [id, [seq, value]] of Object.entries(db.data.records)) records.set(id, { seq, value });
      }
    }
    for (const segment of this.segments()) {
      this.segment = Math.max(this.segment, segment.number);
      const lines = fs.readFileSync(segment.file, 'utf8').split('\n');
      for (const line of lines) {
        if (!line) continue;
        let batch: JournalOp[];
        try {
          batch = JSON.parse(line);
        } catch {
          continue; // a torn final line was never acknowledged
        }
        for (const op of batch) {
          if (op.length === 4) bucket(op[0]).set(op[1], { seq: op[2], value: op[3] });
          else bucket(op[0]).delete(op[1]);
          // replayed records belong to shards that must be snapshotted before the journal goes
          this.dirty.add(shardKey(op[0], shardOf(op[1], this.shardCount)));
        }
      }
    }
    for (const [name, records] of loaded) {
      const state = this.state(name);
      const sorted = [...records.entries()].sort((a, b) => a[1].seq - b[1].seq);
      for (const [id, entry] of sorted) {
        deepFreeze(entry.value);
        state.set(id, entry, this.shardCount);
        this.seq = Math.max(this.seq, entry.seq);
      }
    }
    this.openSegment();
  }

  collection<T extends object>(name: string, options: CollectionOptions = {}): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      const state = this.state(name);
      for (const field of options.indexes ?? []) state.addIndex(field);
      handle = new JournalCollection(name, state, this);
      this.handles.set(name, handle);
    } else {
      for (const field of options.indexes ?? []) this.state(name).addIndex(field);
    }
    return handle as unknown as Collection<T>;
  }

  collectionNames(): string[] {
    return [...this.states.keys()];
  }

  async write(ops: WriteOp[]): Promise<void> {
    this.apply(ops);
  }

  /** Synchronous core of every write: journal first, then memory. */
  apply(ops: WriteOp[]): void {
    if (this.closed) throw new Error('store is closed');
    if (ops.length === 0) return;
    const lines: JournalOp[] = [];
    const entries: (Entry | null)[] = [];
    for (const op of ops) {
      if ('delete' in op) {
        lines.push([op.collection, op.id]);
        entries.push(null);
      } else {
        const existing = this.state(op.collection).records.get(op.id);
        const entry = { seq: existing ? existing.seq : ++this.seq, value: op.value };
        lines.push([op.collection, op.id, entry.seq, op.value]);
        entries.push(entry);
      }
    }
    if (this.fd !== null) {
      const buffer = Buffer.from(JSON.stringify(lines) + '\n');
      fs.writeSync(this.fd, buffer);
      if (this.fsyncEach) fs.fsyncSync(this.fd);
      this.segmentBytes += buffer.length;
    }
    ops.forEach((op, i) => {
      const state = this.state(op.collection);
      const entry = entries[i];
      if (entry) {
        deepFreeze(entry.value);
        state.set(op.id, entry, this.shardCount);
      } else {
        state.remove(op.id, this.shardCount);
      }
      this.dirty.add(shardKey(op.collection, shardOf(op.id, this.shardCount)));
    });
    if (this.segmentBytes >= this.compactBytes && !this.compacting) {
      this.compacting = this.compact().finally(() => (this.compacting = null));
    }
  }

  async flush(): Promise<void> {
    while (this.compacting) await this.compacting;
    if (this.dirty.size > 0 || this.segments().length > 1) {
      this.compacting = this.compact().finally(() => (this.compacting = null));
      await this.compacting;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /** Rotates the journal, snapshots the shards written since, then drops the old segments. */
  private async compact(): Promise<void> {
    if (!this.dataDir) {
      this.dirty.clear();
      return;
    }
    const retired = this.segments().map((s) => s.file);
    this.openSegment();
    const dirty = this.dirty;
    this.dirty = new Set();
    for (const key of dirty) {
      const [name, shard] = splitShardKey(key);
      const state = this.state(name);
      const records: ShardFile['records'] = {};
      for (const id of state.shardMembers(shard)) {
        const entry = state.records.get(id)!;
        records[id] = [entry.seq, entry.value];
      }
      const dir = path.join(this.dataDir, 'collections', name);
      fs.mkdirSync(dir, { recursive: true });
      const db = new Low<ShardFile>(new JSONFile(path.join(dir, `shard-${shard}.json`)), { records });
      await db.write();
      // let requests in between shard writes: compaction must not stall the server
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const file of retired) fs.rmSync(file, { force: true });
  }

  private openSegment(): void {
    if (!this.dataDir) return;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.segment += 1;
    const file = path.join(this.dataDir, 'journal', `${String(this.segment).padStart(8, '0')}.log`);
    this.fd = fs.openSync(file, 'a');
    this.segmentBytes = 0;
  }

  private segments(): { number: number; file: string }[] {
    if (!this.dataDir) return [];
    const dir = path.join(this.dataDir, 'journal');
    return fs
      .readdirSync(dir)
      .filter((f) => /^\d+\.log$/.test(f))
      .map((f) => ({ number: Number(f.slice(0, -4)), file: path.join(dir, f) }))
      .sort((a, b) => a.number - b.number);
  }

  private state(name: string): CollectionState {
    let state = this.states.get(name);
    if (!state) this.states.set(name, (state = new CollectionState()));
    return state;
  }
}

class CollectionState {
  readonly records = new Map<string, Entry>();
  /** Insertion order, walkable from the newest end without copying. */
  readonly order = new OrderedIds();
  private readonly indexes = new Map<string, Map<string, OrderedIds>>();
  private readonly shards = new Map<number, Set<string>>();

  set(id: string, entry: Entry, shardCount: number): void {
    const previous = this.records.get(id);
    this.records.set(id, entry);
    this.order.add(id);
    // Only fields whose value changed are re-indexed: an index keeps insertion order, so
    // `where` + `reverse` lists stay newest-first by creation when a record is updated.
    for (const [field, index] of this.indexes) {
      const before = previous && (previous.value as Record<string, unknown>)[field];
      const after = (entry.value as Record<string, unknown>)[field];
      if (previous && before === after) continue;
      if (typeof before === 'string') dropFromIndex(index, before, id);
      this.indexOne(index, field, id, entry.value);
    }
    const shard = shardOf(id, shardCount);
    let members = this.shards.get(shard);
    if (!members) this.shards.set(shard, (members = new Set()));
    members.add(id);
  }

  remove(id: string, shardCount: number): void {
    const previous = this.records.get(id);
    if (!previous) return;
    this.unindex(id, previous.value);
    this.records.delete(id);
    this.order.delete(id);
    this.shards.get(shardOf(id, shardCount))?.delete(id);
  }

  shardMembers(shard: number): Iterable<string> {
    return this.shards.get(shard) ?? [];
  }

  addIndex(field: string): void {
    if (this.indexes.has(field)) return;
    const index = new Map<string, OrderedIds>();
    this.indexes.set(field, index);
    for (const [id, entry] of this.records) this.indexOne(index, field, id, entry.value);
  }

  /** The ids having `value` in an indexed field; undefined when the field is not indexed. */
  idsWhere(field: string, value: string): OrderedIds | undefined {
    const index = this.indexes.get(field);
    if (!index) return undefined;
    return index.get(value) ?? EMPTY;
  }

  private indexOne(index: Map<string, OrderedIds>, field: string, id: string, value: object): void {
    const key = (value as Record<string, unknown>)[field];
    if (typeof key !== 'string') return;
    let ids = index.get(key);
    if (!ids) index.set(key, (ids = new OrderedIds()));
    ids.add(id);
  }

  private unindex(id: string, value: object): void {
    for (const [field, index] of this.indexes) {
      const key = (value as Record<string, unknown>)[field];
      if (typeof key === 'string') dropFromIndex(index, key, id);
    }
  }
}

function dropFromIndex(index: Map<string, OrderedIds>, key: string, id: string): void {
  const ids = index.get(key);
  if (!ids) return;
  ids.delete(id);
  if (ids.size === 0) index.delete(key); // values that come and go (thread ids) must not pile up
}

class JournalCollection<T extends object> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly state: CollectionState,
    private readonly store: JournalStore,
  ) {}

  async get(id: string): Promise<T | undefined> {
    return this.state.records.get(id)?.value as T | undefined;
  }

  async insert(id: string, value: T): Promise<boolean> {
    if (this.state.records.has(id)) return false;
    this.store.apply([{ collection: this.name, id, value }]);
    return true;
  }

  async put(id: string, value: T): Promise<void> {
    this.store.apply([{ collection: this.name, id, value }]);
  }

  async update(id: string, change: (current: T) => T | undefined): Promise<T | undefined> {
    const current = this.state.records.get(id)?.value as T | undefined;
    if (current === undefined) return undefined;
    const next = change(current);
    if (next === undefined || next === current) return current;
    this.store.apply([{ collection: this.name, id, value: next }]);
    return next;
  }

  async delete(id: string): Promise<boolean> {
    if (!this.state.records.has(id)) return false;
    this.store.apply([{ collection: this.name, id, delete: true }]);
    return true;
  }

  async list(options: ListOptions<T> = {}): Promise<T[]> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? Infinity;
    const out: T[] = [];
    let skipped = 0;
    for (const value of this.scan(options)) {
      if (skipped < offset) {
        skipped += 1;
        continue;
      }
      if (out.length >= limit) break;
      out.push(value);
    }
    return out;
  }

  async count(options: Pick<ListOptions<T>, 'where' | 'filter'> = {}): Promise<number> {
    let n = 0;
    for (const _ of this.scan(options)) n += 1;
    return n;
  }

  private *scan(options: ListOptions<T>): Generator<T> {
    const where = Object.entries(options.where ?? {});
    let ids: OrderedIds | undefined;
    const rest: [string, string][] = [];
    for (const [field, value] of where) {
      const indexed = ids === undefined ? this.state.idsWhere(field, value) : undefined;
      if (indexed !== undefined) ids = indexed;
      else rest.push([field, value]);
    }
    const order = ids ?? this.state.order;
    const records = this.state.records;
    const filter = options.filter;
    for (const id of options.reverse ? order.backward() : order.forward()) {
      const value = records.get(id)?.value as T | undefined;
      if (value === undefined) continue;
      if (rest.length && rest.some(([field, v]) => (value as Record<string, unknown>)[field] !== v)) continue;
      if (filter && !filter(value)) continue;
      yield value;
    }
  }
}

function shardOf(id: string, shardCount: number): number {
  // FNV-1a: cheap and stable across runs, so a record always lands in the same file
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shardCount;
}

function shardKey(collection: string, shard: number): string {
  return `${collection}\u0000${shard}`;
}

function splitShardKey(key: string): [string, number] {
  const at = key.lastIndexOf('\u0000');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
