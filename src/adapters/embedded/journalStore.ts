// The embedded default store. Every acknowledged write is one whole line appended to a
// journal (write(2) looped until every byte is down, so it survives kill -9 of the process);
// the records live in memory and are snapshotted in the background into lowdb files, one per
// shard of a collection. A write therefore costs the same whatever the size of the data set:
// nothing is rewritten on the request path. On start the shards are loaded and the journal
// replayed; the paged collections' records (pagedCollections.ts) only when first needed or once
// the start is over, so a start does not grow with the history (loadCollection). The disk comes first: a write that cannot be put down whole (a full disk, an I/O
// error, a value that is not JSON) is cut back off the journal and never reaches memory.
// dataDir.ts reads the directory strictly, holds its lock and keeps it private.
import fs from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import {
  fieldsSet,
  type Collection,
  type CollectionOptions,
  type DeleteOp,
  type PutOp,
  type SetOp,
  type Store,
  type WriteOp,
} from '../../domain/ports/store.ts';
import { PagedFiles, ValueCache, cacheCost, frozenCopyAndCost, readValues, type Location } from './pagedValues.ts';
import { heapWithin, jsonTextBytes, TOO_DEEP } from './heapSize.ts';
import { knownPart, mayBeWrittenWhole, recordPieces, rememberParts, writtenWhole, type FreshPart, type LinePiece } from './writtenParts.ts';
import { PAGED_COLLECTIONS, DEFAULT_CACHE_BYTES, FEW_VALUES, GROUPED_COLLECTIONS, WRITTEN_ONCE, groupOf } from './pagedCollections.ts';
import { addPagedRecord, endPagedShard, pagedRecords, startPagedShard, takePagedText } from './pagedShards.ts';
import { describingIndex, readIndexedRecords, type DescribingIndex } from './pagedIndex.ts';
import { holdsFew, type IndexedRecord } from './indexRows.ts';
import { fileBytes, groupedTrailer, groupedTrailerOf, pagedTrailer, pagedTrailerOf, readTrailerRows, type TrailerIndex } from './shardTrailer.ts';
import { LoadStrings, RecentStrings, type KeptStrings } from './keptStrings.ts';
import { deepFreeze, frozenCopy, frozenCopyAlong, madeFromJson } from '../../domain/freeze.ts';
import { copyWith } from '../../domain/copyWith.ts';
import { CollectionState, keptKeys, keysOf, placeOf, wholeEntry, type Kept } from './collectionState.ts';
import { RecordGroups, type Group, type RecordSet } from './recordGroups.ts';
import { describingGroupedIndex, IN_SHARD, type Side } from './groupedIndex.ts';
import { JournalCollection } from './journalCollection.ts';
import { journalLines, lineIndexOf, readLineIndex, topLevelField, writeLineIndex } from './journalLines.ts';
import { cacheKeyOf, sameVersion } from './packedRecords.ts';
import { CHECKPOINTS, dropSuperseded, type CachedRecords } from './supersededCheckpoints.ts';
import { CHECKPOINT_COLLECTIONS } from './collectionCheckpoints.ts';
import { seqOrder } from './seqOrder.ts';
import { nestsDeeper, STORE_MAX_DEPTH } from './nestingDepth.ts';
import { asPut, isTextPut, type TextPut, type TextPutCollections } from './textPut.ts';
import type { Held } from './orderedIds.ts';
import { StoreWriteError, ioWriteError } from '../../shared/storeErrors.ts';
import {
  FILE_MODE,
  META_FILE,
  SHARD_TEXT_CHUNK,
  ShardAdapter,
  acquireLock,
  collectionsDir,
  damaged,
  isProblem,
  journalDir,
  privateDir,
  privateFile,
  readDataDir,
  readShard,
  segments,
  shardOf,
  shardOfCodes,
  shardPath,
  writeFileAtomic,
  writeFileAtomicSync,
  type FileData,
  atomicTmpOf,
  type FewShards,
  type JournalOp,
  type Meta,
  type Problem,
  type ShardFile,
} from './dataDir.ts';
import type { Logger } from '../../runtime/logging/logger.ts';

/** How many bytes of values (a chunk of the shard's text, written as it is made), or records, a snapshot's shard reads together (readValues). */
const READ_BATCH_BYTES = SHARD_TEXT_CHUNK;
const READ_BATCH_RECORDS = 4096;
/** How many records a snapshot's pass over a collection reads between two turns of the event loop. */
const SCAN_CHUNK = 20_000;
/**
 * How many records the history's load after a start handles at most between two turns of the
 * event loop, in each of its steps (JournalStoreOptions.loadSlice): the requests of a restart
 * are answered between slices (issue 91: 5,000 records at once, and one sort of every record,
 * held the first /ok of a restart on 100,000 runs ~50-150 ms of CPU behind each).
 */
const LOAD_SLICE = 1_000;
/** When the paged collections' load begins if no request asked for their records before: after the store opens (JournalStoreOptions.loadAfterMs). */
const LOAD_AFTER_MS = 2_000;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The heap a record of a grouped collection held in memory costs (recordGroups.ts: ~380 bytes), erring high. */
export const HELD_RECORD_BYTES = 400;

export { STORE_MAX_DEPTH, nestsDeeper };

/** The collections whose writes change a thread's checkpoint mark (checkpointMark), and how many threads' marks are remembered. */
const MARKED_COLLECTIONS: Readonly<Record<string, true>> = Object.fromEntries(Object.values(CHECKPOINT_COLLECTIONS).map((name) => [name, true]));
const MARKED_THREADS = 4096;

/** A TextPut's value in its journal op and entry while its line is made: never read, its text given beside it. */
const TEXT_ONLY: object = Object.freeze({});

/** The file operations a journal write and a snapshot go through; tests make them fail. */
export interface StoreIo {
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  /** Writes a snapshot file whole or not at all; chunks given one after another are written as they come. */
  writeFile(file: string, data: FileData, sync: boolean): Promise<void>;
}

// looked up on each call, so a test's fs shim (or a preloaded one) is seen
const nodeIo: StoreIo = {
  writeSync: (fd, buffer, offset, length) => fs.writeSync(fd, buffer, offset, length),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  writeFile: (file, data, sync) => writeFileAtomic(file, data, sync),
};

export interface JournalStoreOptions {
  /** Directory for journal and shards; null keeps everything in memory (mock mode, tests). */
  dataDir: string | null;
  shards?: number;
  /** The least journal size that triggers a background snapshot. */
  compactBytes?: number;
  /**
   * A background snapshot also waits until the journal is this many times the size of the
   * snapshot files (0: compactBytes alone decides). Each snapshot rewrites every shard the
   * journal touched, which once a store has grown is most of it: with a fixed size a store
   * twice as big spends twice the work per write on snapshots; with the journal growing as
   * the snapshot does, the work per byte written stays the same (a start replays at most a
   * journal of the snapshot's size).
   */
  compactRatio?: number;
  /**
   * A background snapshot is taken once the journal is this big, however big the snapshot: a
   * start replays at most about this much journal (after kill -9, or a clean stop that left it:
   * closeRewriteBytes). A store whose snapshot is bigger rewrites it more often than
   * compactRatio alone would.
   */
  maxJournalBytes?: number;
  /**
   * A clean stop (close) takes the final snapshot when the shard files it would rewrite hold no
   * more than this many bytes (default 16 MB) or no more than the journal does; otherwise it
   * leaves the journal, fsynced, for the next start to replay, as the background rule above
   * would (issue 91: 200 runs on a 100,000-run history dirtied nearly every shard, and the
   * final snapshot rewrote ~4 GB in 17 s, past a supervisor's 10 s before SIGKILL).
   */
  closeRewriteBytes?: number;
  /** fsync each journal write (and each snapshot before the journal behind it goes): survives power loss, not only process death. */
  fsync?: boolean;
  log?: Logger;
  io?: StoreIo;
  /** First wait before a failed background snapshot is tried again (doubling up to a minute). */
  retryMs?: number;
  /**
   * Collections whose values stay on disk (with a data directory), each with the fields kept in
   * memory beside a record's place: its indexes and the fields it is ordered by.
   */
  paged?: Readonly<Record<string, readonly string[]>>;
  /** Per paged collection, kept values few of its records hold, looked up before its records are loaded after a start (pagedCollections.ts FEW_VALUES). */
  few?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  /** The budget, in bytes of heap (pagedValues.ts cacheCost), of the paged values kept in memory once read or written. */
  cacheBytes?: number;
  /**
   * Paged collections whose records are kept in groups, a thread's together (pagedCollections.ts
   * GROUPED_COLLECTIONS), each with the fields whose value names a group. The default with the
   * default `paged`; none when `paged` is given.
   */
  grouped?: Readonly<Record<string, readonly string[]>>;
  /**
   * How many records of each grouped collection stay held in memory once on disk, the groups
   * used last (default: one per 4 KB of cacheBytes for the grouped collections together, at
   * least 1,024 each); their heap is counted in the value cache's budget (HELD_RECORD_BYTES).
   */
  heldRecords?: number;
  /**
   * When the paged collections' records no request asked for begin to load: this many ms after
   * the store opens (default 2,000), or with null only once `loadInBackground` is called (a
   * server calls it once it serves: a fixed time fell inside a slow start, issue 91).
   */
  loadAfterMs?: number | null;
  /** How many records the load after a start handles at most between two turns of the event loop (default 1,000; tests). */
  loadSlice?: number;
}

/** A share of the value cache's budget held outside the store (JournalStore.shareCache). */
export interface CacheShare {
  readonly budget: number;
  grown(): void;
}

export async function openJournalStore(options: JournalStoreOptions): Promise<JournalStore> {
  const store = new JournalStore(options);
  await store.load();
  return store;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, routine() {}, access() {}, child: () => silent, enabled: () => false };

export class JournalStore implements Store {
  private readonly dataDir: string | null;
  private shardCount: number;
  private readonly compactBytes: number;
  private readonly compactRatio: number;
  private readonly maxJournalBytes: number;
  private readonly closeRewriteBytes: number;
  /** The size of each snapshot file (by shard key) as last written or found, and their sum. */
  private readonly shardBytes = new Map<string, number>();
  private snapshotBytes = 0;
  private readonly fsyncEach: boolean;
  private readonly log: Logger;
  private readonly io: StoreIo;
  private readonly retryMs: number;
  private readonly states = new Map<string, RecordSet>();
  private readonly handles = new Map<string, JournalCollection<object>>();
  private seq = 0;
  private fd: number | null = null;
  private segment = 0;
  private segmentFile = '';
  private segmentBytes = 0;
  /** Set when a failed write could not be cut back off the journal: done before anything else is written. */
  private cutBackTo: number | null = null;
  private failingWrites = 0;
  private dirty = new Set<string>();
  /**
   * Each collection's shard keys (shardKey) by shard, made once: a write marks its shard dirty by
   * the same string each time, its hash kept in it, not a new joined string to flatten and hash
   * (issue 86: a POST /threads did both).
   */
  private readonly shardKeys = new Map<string, string[]>();
  /** Snapshot files written so far (store.json lists them, so a missing one is noticed). */
  private listed: Record<string, number[]> = {};
  private compacting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private snapshotFailures = 0;
  private releaseLock: (() => void) | null = null;
  private closed = false;
  /** Set by close: a background snapshot under way stops before its next shard (its journal stays). */
  private stopping = false;
  private readonly paged: Readonly<Record<string, readonly string[]>>;
  /** Per thread, its checkpoint mark (checkpointMark); `marks` counts them out. */
  private readonly checkpointMarks = new Map<string, number>();
  private marks = 0;
  private readonly few: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  private readonly grouped: Readonly<Record<string, readonly string[]>>;
  private readonly heldRecords: number;
  /** The grouped collections' record sets, whose held records the value cache's budget counts. */
  private readonly groupSets: RecordGroups[] = [];
  private readonly loadAfterMs: number | null;
  private readonly loadSlice: number;
  /**
   * Per paged collection, its shards' saved indexes in files of their own (the layouts before the
   * trailer: shard-N.index, shard-N.a.index, shard-N.b.index), found by one look at its directory
   * the first time a snapshot writes it: each is removed once its shard is written with its
   * trailer, rather than an rm each shard each snapshot (issue 91).
   */
  private readonly oldIndexes = new Map<string, Map<number, string[]>>();
  /** The collections' directories a snapshot made sure of: a mkdir a collection, not a shard (issue 91). */
  private readonly dirsMade = new Set<string>();
  /** The paged collections whose records are still to load after the start (loadCollection). */
  private readonly later = new Map<string, PagedLoad>();
  private readonly files = new PagedFiles();
  private readonly cache: ValueCache<Kept | number>;
  /** Set on load when a paged shard had no saved index that describes it (read whole instead). */
  private unindexed = false;
  /** The file number of the journal file being written, for the records located in it. */
  private segmentNumber = 0;
  /** Shares the strings kept of paged records: all seen while loading, then the last few written. */
  private strings: KeptStrings = new RecentStrings();
  private loadTimer: NodeJS.Timeout | null = null;
  /** Set when a paged record loaded is held whole (a shard from before paging): the next snapshot puts it on disk. */
  private unplaced = false;
  /**
   * Per collection with few values (FEW_VALUES), the shards whose files hold a record with one,
   * kept in store.json (Meta.few) so that a start opens only those (issue 91: the runs' 64 index
   * heads read cold were ~300 ms of the first restart after a history was written). Set from
   * store.json at the start, from each index head read, and from each shard written.
   */
  private readonly fewShards = new Map<string, Set<number>>();
  /** Per such collection, its shards whose holders are not known (read whole, no index head): store.json lists none for it until they are written again. */
  private readonly fewUnknown = new Map<string, Set<number>>();

  constructor(options: JournalStoreOptions) {
    this.dataDir = options.dataDir;
    this.shardCount = options.shards ?? 64;
    this.compactBytes = options.compactBytes ?? 32 * 1024 * 1024;
    this.compactRatio = options.compactRatio ?? 1;
    this.maxJournalBytes = options.maxJournalBytes ?? 128 * 1024 * 1024;
    this.closeRewriteBytes = options.closeRewriteBytes ?? 16 * 1024 * 1024;
    this.fsyncEach = options.fsync ?? false;
    this.log = options.log ?? silent;
    this.io = options.io ?? nodeIo;
    this.retryMs = options.retryMs ?? 1_000;
    this.paged = this.dataDir ? (options.paged ?? PAGED_COLLECTIONS) : {};
    this.few = options.few ?? (options.paged ? {} : FEW_VALUES);
    this.cache = new ValueCache<Kept | number>(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    const grouped = options.grouped ?? (options.paged ? {} : GROUPED_COLLECTIONS);
    this.grouped = Object.fromEntries(Object.entries(grouped).filter(([name]) => name in this.paged));
    const groupedCount = Math.max(1, Object.keys(this.grouped).length);
    this.heldRecords = options.heldRecords ?? Math.max(1024, Math.floor((options.cacheBytes ?? DEFAULT_CACHE_BYTES) / 4096 / groupedCount));
    // held records were outside any budget: 16,384 a grouped collection at the default, ~19 MB of
    // heap once old threads had been read (issue 91)
    this.cache.shareWith(() => this.heldGroupRecords * HELD_RECORD_BYTES);
    this.loadAfterMs = options.loadAfterMs === undefined ? LOAD_AFTER_MS : options.loadAfterMs;
    this.loadSlice = options.loadSlice ?? LOAD_SLICE;
  }

  async load(): Promise<void> {
    const dir = this.dataDir;
    if (!dir) return;
    const warn = (msg: string, fields: Record<string, unknown>) => this.log.warn(msg, fields);
    privateDir(dir, warn);
    this.releaseLock = acquireLock(dir, warn);
    try {
      this.loadLocked(dir, warn);
    } catch (err) {
      this.releaseLock();
      this.releaseLock = null;
      throw err;
    }
  }

  private loadLocked(dir: string, warn: (msg: string, fields: Record<string, unknown>) => void): void {
    privateDir(journalDir(dir), warn);
    privateDir(collectionsDir(dir), warn);
    // every string kept of a paged record while loading is shared, the background's too
    const strings = new LoadStrings();
    // the shards of paged collections are checked here, a file at a time: those whose saved
    // index describes them are loaded after the start (loadPaged), the others read now
    // the journal's lines are scanned, not parsed: a paged value is parsed in its collection's load (journalLines.ts)
    const read = readDataDir(
      dir,
      this.shardCount,
      (name) => name in this.paged,
      (segment) => journalLines(segment, (name) => !(name in this.paged)),
    );
    const problems = [...read.problems];
    this.shardCount = read.shardCount;
    // the seq store.json kept is at least every seq the snapshot's files hold: the grouped shards'
    // index heads (30,000 threads' lines of a 100,000-run history, ~70% of the opening's CPU before
    // the port listened; issue 91) are then read in the load after serving, not here. A directory
    // without it has them read here, for their seqs, as before.
    if (read.meta?.seq !== undefined) this.seq = read.meta.seq;
    const groupsLater = read.meta?.seq !== undefined;
    const loaded = new Map<string, Map<string, Kept>>();
    const bucket = (name: string) => {
      let m = loaded.get(name);
      if (!m) loaded.set(name, (m = new Map()));
      return m;
    };
    const later = this.later;
    const laterOf = (name: string) => {
      let load = later.get(name);
      if (!load) later.set(name, (load = { records: new Map(), indexed: [], unopened: [], journal: [], holding: [], begun: false }));
      return load;
    };
    for (const [name, numbers] of read.unread) {
      const load = laterOf(name);
      this.listed[name] = [];
      // the shards store.json says hold few values: the others are opened in the load (openPagedShard)
      const fewListed = groupsLater ? this.fewListed(name, read.meta?.few?.[name]) : null;
      for (const n of numbers) {
        const found = this.openPagedShard(dir, name, n, load, strings, groupsLater, fewListed);
        if (found) problems.push(found);
        else this.listed[name].push(n);
      }
    }
    if (problems.length) throw damaged(dir, problems);
    for (const [name, shards] of read.shards) {
      const records = bucket(name);
      this.listed[name] = [...shards.keys()];
      for (const [n, shard] of shards) {
        const file = shardPath(dir, name, n);
        privateFile(file);
        this.sizeOfShard(shardKey(name, n), fs.statSync(file).size);
        for (const [id, [seq, value]] of Object.entries(shard.records)) records.set(id, wholeEntry(seq, value));
      }
    }
    for (const segment of read.segments) {
      privateFile(segment.file);
      this.segment = Math.max(this.segment, segment.number);
      const file = segment.lines.some((line) => line.some((op) => op.value === undefined && op.seq !== undefined)) ? this.files.open(segment.file) : 0;
      for (const line of segment.lines) {
        for (const { collection, id, seq, value, at, len } of line) {
          if (seq !== undefined) this.seq = Math.max(this.seq, seq);
          // a paged collection's journal is replayed after its shards, in the background: its values where they are in the file
          if (collection in this.paged) laterOf(collection).journal.push({ id, seq, value, where: seq === undefined || value ? undefined : { file, at, len } });
          else if (seq !== undefined) bucket(collection).set(id, wholeEntry(seq, value!));
          else bucket(collection).delete(id);
          // replayed records belong to shards that must be snapshotted before the journal goes
          this.dirty.add(shardKey(collection, this.shardOfRecord(collection, id)));
        }
      }
      if (segment.torn) {
        // the newest file ends in a write cut short (kill -9, a full disk): never acknowledged
        warn('the journal ends in an incomplete line, a write that was never acknowledged; dropping it', {
          file: segment.file,
          line: segment.torn.line,
          bytes: segment.torn.bytes,
        });
        fs.truncateSync(segment.file, segment.torn.offset);
      }
    }
    for (const [name, records] of loaded) {
      const state = this.state(name);
      const sorted = [...records.entries()].sort((a, b) => a[1].seq - b[1].seq);
      for (const [id, entry] of sorted) {
        deepFreeze(entry.value);
        state.set(id, entry);
        this.seq = Math.max(this.seq, entry.seq);
      }
    }
    // the journal file first: a directory with store.json and no journal is one whose journal was lost
    this.openSegment();
    // each start begins a journal file, and a stop that left its journal (closeRewriteBytes) leaves
    // them all until a snapshot: the empty ones go now, so restarts without writes do not pile them up
    for (const segment of read.segments) if (segment.file !== this.segmentFile && fileSize(segment.file) === 0) removeSegment(segment.file);
    this.writeMeta();
    privateFile(path.join(dir, META_FILE));
    if (later.size === 0) return;
    // each paged collection's records are loaded when a request first needs them (run recovery
    // asks for the runs during the start), one collection at a time, and those no request asked
    // for once the start is over
    let chain = Promise.resolve();
    let left = later.size;
    for (const [name, load] of later) {
      const state = this.state(name);
      let loading: Promise<void> | null = null;
      const begin = async () => {
        const run = chain.then(() => this.loadCollection(dir, name, load, strings));
        chain = run.catch(() => undefined);
        try {
          await run;
        } catch (err) {
          this.log.error('the store could not load the records of a collection; it answers with the error until the server is restarted', {
            collection: name,
            error: (err as Error).message,
          });
          throw err;
        }
        // values still held whole (shards from before paging) go to disk soon, and shards without a saved index get one
        if (--left > 0) return;
        // the strings shared while loading (every id and kept string seen) are let go: the timer's
        // callback shares this scope's closures, and it was seen holding them until it would have fired
        if (this.loadTimer) clearTimeout(this.loadTimer);
        this.loadTimer = null;
        strings.clear();
        if (this.unplaced || this.unindexed) this.snapshotSoon();
      };
      state.load = () => (loading ??= begin());
    }
    // nothing made here outlives the loads but this timer: the closures of a scope share what they
    // keep, and the strings shared while loading (every kept string seen) are let go once loaded
    if (this.loadAfterMs === null) return;
    this.loadTimer = setTimeout(() => this.loadInBackground(), this.loadAfterMs);
    this.loadTimer.unref();
  }

  /**
   * Begins loading the paged collections' records no request has asked for yet, one collection
   * at a time, letting requests in as they go (loadCollection); a failure is told by the
   * requests that wait for them.
   */
  loadInBackground(): void {
    if (this.closed) return;
    void this.loaded().catch(() => undefined);
  }

  /**
   * One paged collection's records, loaded after the start (issue 91): each shard's saved index,
   * then the journal written since, letting requests in between shards and every `loadSlice`
   * records of each step (a shard's records kept, the journal's, their order, their setting). A
   * start therefore waits for no paged record, however long the history, and a request during
   * the load waits for a slice of it; a request on the collection waits until its records are in
   * (state.load), and a snapshot until all are.
   */
  private async loadCollection(dir: string, name: string, load: PagedLoad, strings: LoadStrings): Promise<void> {
    load.begun = true;
    load.holding = [];
    const slice = this.loadSlice;
    let handled = 0;
    // true once a slice's records are handled: the event loop turns then (an await for every record cost a promise each)
    const due = () => ++handled % slice === 0;
    await turn();
    // the shards left unopened at the start (openPagedShard), opened now in their order: a grouped
    // one's head read (its groups), another's index head checked; one that no saved index describes
    // is read whole, and one missing or unreadable fails the load (as a paged shard's below), not the start
    for (const n of load.unopened) {
      const problem = this.openPagedShard(dir, name, n, load, strings, false);
      if (problem) throw damaged(dir, [problem]);
      await turn();
    }
    load.unopened = [];
    const kept = this.paged[name]!;
    for (const { n, number, index } of load.indexed) {
      const indexed =
        'rows' in index ? readTrailerRows(this.files.descriptor(number), index.rows, kept, index.end, index.seq) : readIndexedRecords(index, kept);
      if (indexed) {
        // an id is shared too: another record keeps it (a checkpoint's id is its writes' cp_key, a run's id its run_id)
        for (const { id, seq, at, len, keys } of indexed) {
          load.records.set(strings.share(id), { seq, value: undefined, slot: -1, file: number, at, len, keys: keptKeys(keys, strings) });
          if (due()) await turn();
        }
      } else {
        // its head described the shard, its records are not readable: the shard is read instead
        const problem = this.readPagedShard(dir, name, n, load.records, strings);
        if (problem) throw damaged(dir, [problem]);
      }
      await turn();
    }
    const state = this.state(name);
    // a grouped collection's records on disk are in its groups, not here: the journal is replayed onto them after the shards read whole
    const onto = state.groups ? load.journal : [];
    if (!onto.length)
      for (const op of load.journal) {
        if (op.seq !== undefined) load.records.set(op.id, this.replayedEntry(dir, name, op, strings));
        else load.records.delete(op.id);
        if (due()) await turn();
      }
    load.journal = [];
    // the records in the order of their seq (seqOrder.ts), then set in it
    const ids: string[] = [];
    const entries: Kept[] = [];
    const seqs = new Float64Array(load.records.size);
    for (const [id, entry] of load.records) {
      seqs[ids.length] = entry.seq;
      ids.push(id);
      entries.push(entry);
      if (due()) await turn();
    }
    load.records.clear();
    const order = seqOrder(seqs);
    for (const at of order) {
      this.setLoaded(state, ids[at]!, entries[at]!);
      if (due()) await turn();
    }
    for (const op of onto) {
      if (op.seq !== undefined) this.setLoaded(state, op.id, this.replayedEntry(dir, name, op, strings));
      else state.remove(op.id);
      if (due()) await turn();
    }
    state.load = null;
    this.later.delete(name);
  }

  private setLoaded(state: RecordSet, id: string, entry: Kept): void {
    if (entry.value) deepFreeze(entry.value);
    if (!entry.file) this.unplaced = true;
    state.set(id, entry);
    this.seq = Math.max(this.seq, entry.seq);
  }

  /**
   * Before a paged collection's records are loaded: the records holding `value` in `field` when
   * it is one of the values few records hold (FEW_VALUES), in the collection's order, from the
   * saved indexes' heads, the shards read at the start and the journal since; undefined when it
   * is not, or the load has begun (then the caller waits for it). Nothing is written to the
   * collection meanwhile: a write waits for its records.
   */
  fewBefore(name: string, field: string, value: string): object[] | undefined {
    const load = this.later.get(name);
    const kept = this.paged[name];
    if (!load || load.begun || !kept || !this.few[name]?.[field]?.includes(value)) return undefined;
    const at = kept.indexOf(field);
    const found = new Map<string, { seq: number; value?: object; where?: Location }>();
    // a head lists the records holding any of the few values (a pending run and a running one): this one's only
    for (const { id, seq, keys, where } of load.holding) if (keys[at] === value) found.set(id, { seq, where });
    for (const [id, entry] of load.records) {
      const held = entry.keys ? entry.keys[at] : (entry.value as Record<string, unknown>)[field];
      if (held === value) found.set(id, entry.file ? { seq: entry.seq, where: placeOf(entry) } : { seq: entry.seq, value: entry.value });
    }
    // each record's last op in the journal decides; only the values of the last puts are parsed
    const last = new Map<string, Replayed>();
    for (const op of load.journal) {
      last.delete(op.id);
      last.set(op.id, op);
    }
    for (const op of last.values()) {
      const matches = op.seq !== undefined && this.replayedField(name, op, field) === value;
      if (matches) found.set(op.id, { seq: op.seq!, value: this.replayedValue(this.dataDir!, name, op) });
      else found.delete(op.id);
    }
    return [...found.values()]
      .sort((a, b) => a.seq - b.seq)
      .map((record) => deepFreeze(record.value ?? (JSON.parse(this.files.read(record.where!).toString('utf8')) as object)));
  }

  /** Resolves once every record is loaded (the paged collections' after the start); rejects as they do when that failed. */
  async loaded(): Promise<void> {
    for (const name of [...this.later.keys()]) await this.states.get(name)?.load?.();
  }

  /**
   * A field of a replayed put's value (fewBefore: run recovery's status of each run the journal
   * kept), read from the first bytes of its value in the journal file where it lies there, else
   * from the value parsed whole; kept on the op, so the next look-up (running, then pending) reads nothing.
   */
  private replayedField(name: string, op: Replayed, field: string): unknown {
    if (op.value) return (op.value as Record<string, unknown>)[field];
    const known = op.fields?.get(field);
    if (known) return known.value;
    const where = op.where!;
    const head = topLevelField(this.files.read({ file: where.file, at: where.at, len: Math.min(where.len, FIELD_PREFIX) }), field);
    const whole = () => ({ value: (this.replayedValue(this.dataDir!, name, op) as Record<string, unknown>)[field] });
    const read = head === undefined ? whole() : (head ?? { value: undefined });
    (op.fields ??= new Map()).set(field, read);
    return read.value;
  }

  /** A replayed put's value: given, or parsed from where it is in its journal file; one that does not parse fails its collection's load. */
  private replayedValue(dir: string, name: string, op: Replayed): object {
    if (op.value) return op.value;
    const where = op.where!;
    try {
      return JSON.parse(this.files.read(where).toString('utf8')) as object;
    } catch (err) {
      throw damaged(dir, [
        {
          file: path.relative(dir, this.files.pathOf(where.file)),
          what: `the journal's value of ${name}/${op.id} at byte ${where.at} (${where.len} bytes) does not read as JSON (${(err as Error).message})`,
          repair: 'the line is dropped (kept in the moved-aside copy); every readable line is kept',
        },
      ]);
    }
  }

  /** A replayed put as loaded: its value left where it is in the journal file, its kept fields read from it. */
  private replayedEntry(dir: string, name: string, op: Replayed, strings: KeptStrings): Kept {
    return this.loadedEntry(name, op.seq!, this.replayedValue(dir, name, op), op.where, strings);
  }

  /** A record as loaded: a value of a paged collection found at a place on disk is left there. */
  private loadedEntry(name: string, seq: number, value: object, where: Location | undefined, strings: KeptStrings): Kept {
    const kept = this.paged[name];
    if (!kept || !where) return wholeEntry(seq, value);
    return { seq, value: undefined, slot: -1, ...where, keys: keysOf(kept, value, strings) };
  }

  /**
   * One shard of a paged collection at the start: when its saved index describes it, its records
   * are left for loadPaged; otherwise it is read now (readPagedShard). Returns the problem with
   * the file, if any.
   */
  private openPagedShard(
    dir: string,
    name: string,
    n: number,
    load: PagedLoad,
    strings: KeptStrings,
    later: boolean,
    fewListed: ReadonlySet<number> | null = null,
  ): Problem | null {
    const set = this.state(name);
    // store.json kept the seq (`later`): a shard whose index head nothing reads before its
    // collection's load (a grouped collection's, whose groups the load learns; one whose index
    // lists no few values, as the threads') is not opened here but in the load (loadCollection):
    // 320 of a 100,000-run history's 384 shard files were opened, statted and half their heads
    // read before the port listened (issue 91). A missing one was named from the listing
    // (readDataDir) and refuses the start as before. Its size counts toward the snapshot's ratio
    // from its load on (before it, a snapshot may fall due at compactBytes alone; it waits for the load).
    // A shard store.json does not list as holding few values (Meta.few) is left for the load as
    // well: one that holds one since holds it through a write the journal still has, which the
    // look-up (fewBefore) reads (a snapshot removes its journal only after writing store.json).
    if (later && (set.groups || !this.few[name] || (fewListed && !fewListed.has(n)))) {
      load.unopened.push(n);
      return null;
    }
    const file = shardPath(dir, name, n);
    let number = 0;
    try {
      number = this.files.open(file);
    } catch {
      // missing or unreadable: named by readShard, as for any shard
    }
    if (set.groups) {
      return number && this.openGroupedShard(name, n, set.groups, file, number, strings) ? null : this.readPagedShard(dir, name, n, load.records, strings);
    }
    // the shard's own trailer, else a saved index of the layout before it (a file of its own)
    const fd = number ? this.files.descriptor(number) : 0;
    const [kept, few] = [this.paged[name]!, this.few[name]];
    const index = number ? (pagedTrailerOf(fileBytes(fd), kept, few) ?? describingIndex(file, fd, kept, few)) : null;
    if (!index) return this.readPagedShard(dir, name, n, load.records, strings);
    this.holdsFewIn(name, n, index.holding.length > 0);
    load.indexed.push({ n, number, index });
    for (const { id, seq, at, len, keys } of index.holding) load.holding.push({ id, seq, keys, where: { file: number, at, len } });
    this.seq = Math.max(this.seq, index.seq);
    privateFile(file);
    this.sizeOfShard(shardKey(name, n), index.size);
    return null;
  }

  /**
   * One shard of a grouped collection at the start, when one of its saved indexes describes it:
   * its groups are known from the index's head, and read when used. False when none does, or
   * the head lists a group another shard did or that is not this shard's (the shard is read).
   */
  private openGroupedShard(name: string, n: number, set: RecordGroups, file: string, number: number, strings: KeptStrings): boolean {
    const fd = this.files.descriptor(number);
    const trailer = groupedTrailerOf(fileBytes(fd), this.paged[name]!);
    // the shard's own trailer, else a saved index of the layout before it (a file of its own, side a or b)
    const index = trailer ? { ...trailer, side: IN_SHARD as Side } : describingGroupedIndex(file, fd, this.paged[name]!);
    const keys = index?.groups.map((group) => group.key) ?? [];
    if (!index || !keys.every((key) => shardOf(key, this.shardCount) === n) || !set.noneKnown(keys)) return false;
    // a group's key is its thread's id: one string for a thread's groups in the three collections
    // and its runs' thread_id, not four (~170 bytes a thread; issue 91)
    for (const line of index.groups) set.addOnDisk(line, number, index.side, strings.share(line.key));
    this.seq = Math.max(this.seq, index.seq);
    privateFile(file);
    this.sizeOfShard(shardKey(name, n), index.size);
    return true;
  }

  /**
   * The records of one shard of a paged collection into `records`, read whole, each located in
   * the file; a shard written whole (before paging) is kept in memory until the next snapshot
   * writes it again. Either way the next snapshot writes it with an index. Returns the problem
   * with the file, if any.
   */
  private readPagedShard(dir: string, name: string, n: number, records: Map<string, Kept>, strings: KeptStrings): Problem | null {
    const file = shardPath(dir, name, n);
    this.dirty.add(shardKey(name, n));
    this.unindexed = true;
    this.holdsFewIn(name, n, null);
    let buffer: Buffer | null = null;
    try {
      buffer = fs.readFileSync(file);
    } catch {
      // named by readShard below, as for any shard
    }
    const paged = buffer && pagedRecords(buffer);
    if (paged) {
      const number = this.files.open(file);
      for (const record of paged) {
        this.dirty.add(shardKey(name, this.shardOfRecord(name, record.id))); // the shard it belongs in, when not this one (a grouped collection's before groups)
        records.set(record.id, this.loadedEntry(name, record.seq, record.value, { file: number, at: record.at, len: record.len }, strings));
        this.seq = Math.max(this.seq, record.seq);
      }
    } else {
      const whole = readShard(dir, name, n);
      if (isProblem(whole)) return whole;
      for (const [id, [seq, value]] of Object.entries(whole.records)) {
        this.dirty.add(shardKey(name, this.shardOfRecord(name, id)));
        records.set(id, wholeEntry(seq, value));
        this.seq = Math.max(this.seq, seq);
      }
    }
    privateFile(file);
    this.sizeOfShard(shardKey(name, n), buffer?.length ?? fs.statSync(file).size);
    return null;
  }

  collection<T extends object>(name: string, options: CollectionOptions = {}): Collection<T> {
    const kept = this.paged[name];
    const missing = kept && (options.indexes ?? []).filter((field) => !kept.includes(field));
    // an index of a paged collection is built from what memory keeps: a field it lacks would be read from disk for every record
    if (missing?.length) throw new Error(`collection ${name}: indexed fields ${missing.join(', ')} are not among those its paged records keep`);
    let handle = this.handles.get(name);
    if (!handle) {
      const state = this.state(name);
      for (const field of options.indexes ?? []) state.addIndex(field, this.few[name]?.[field]);
      handle = new JournalCollection(name, state, this);
      this.handles.set(name, handle);
    } else {
      for (const field of options.indexes ?? []) this.state(name).addIndex(field, this.few[name]?.[field]);
    }
    return handle as unknown as Collection<T>;
  }

  collectionNames(): string[] {
    return [...this.states.keys()];
  }

  async write(ops: WriteOp[]): Promise<void> {
    for (const op of ops) {
      for (const name of 'whileAny' in op && op.whileAny ? [op.collection, op.whileAny.collection] : [op.collection]) {
        const load = this.states.get(name)?.load;
        if (load) await load();
      }
    }
    this.apply(ops);
  }

  /**
   * The collections whose puts this store takes as their text and kept fields alone (TextPut,
   * textPut.ts): its paged collections of checkpoints, when it writes a journal (held in memory
   * alone, it keeps every value and takes none).
   */
  textPuts(): TextPutCollections | null {
    if (!this.dataDir) return null;
    const taken: Record<string, readonly string[]> = {};
    for (const name of Object.values(CHECKPOINT_COLLECTIONS)) if (this.paged[name]) taken[name] = this.paged[name];
    return taken;
  }

  /**
   * A write whose puts may be TextPuts of the collections textPuts() names; any other is made as
   * the put it stands for. Resolves with `thread`'s checkpoint mark as the write left it (checkpointMark).
   */
  async writeTexts(ops: (WriteOp | TextPut)[], thread?: string): Promise<number | undefined> {
    for (const op of ops) {
      const load = this.states.get(op.collection)?.load;
      if (load) await load();
    }
    this.apply(ops);
    return thread === undefined ? undefined : this.checkpointMark(thread);
  }

  /**
   * A number that changes with every write of the thread's checkpoints, pending writes or channel
   * values, whoever makes it; undefined for a thread none was written of lately (beyond the
   * MARKED_THREADS first marked since). A run worker whose write left a mark still standing holds the thread's newest
   * checkpoint itself (runWorkerPool.ts).
   */
  checkpointMark(thread: string): number | undefined {
    return this.checkpointMarks.get(thread);
  }

  /** The thread's checkpoints were written: its mark changes (and it is the newest one remembered). */
  private markCheckpoints(id: string): void {
    const thread = groupOf(id);
    // set again under the key it was first set under: a slice of a long record id kept as a key keeps the whole id
    if (this.checkpointMarks.has(thread)) this.checkpointMarks.set(thread, ++this.marks);
    else {
      this.checkpointMarks.set(structuredClone(thread), ++this.marks);
      // the threads first marked longest ago go first (a thread whose mark is gone is read as before)
      if (this.checkpointMarks.size > MARKED_THREADS) this.checkpointMarks.delete(this.checkpointMarks.keys().next().value!);
    }
  }

  /** Whether the store writes `op` as its text: a journal line, its collection's values paged and kept by the same fields. */
  private takesText(op: TextPut): boolean {
    const kept = this.paged[op.collection];
    return this.fd !== null && kept !== undefined && kept.length === op.kept.length;
  }

  /**
   * A SetOp as the put it is now: its fields on the record as memory holds it at this moment
   * (apply runs whole, so no write comes between this read and the line), `whileAny` counted
   * now too; null when there is no record (one deleted meanwhile stays deleted).
   */
  private putNow(op: SetOp, earlier: Map<string, object | null>): PutOp | null {
    const key = `${op.collection}\u0000${op.id}`;
    // a record written earlier in the same write is set as that write left it
    const current = earlier.has(key) ? earlier.get(key) : this.handle(op.collection).readLoaded(op.id);
    if (current === undefined || current === null) return null;
    const matched = op.whileAny !== undefined && this.handle(op.whileAny.collection).anyLoaded(op.whileAny.where);
    // what a field set holds the same as the record did (a thread's values after a run: its
    // messages but the new ones) stays the record's objects, not a new copy of each (freeze.ts)
    const set = fieldsSet(op, matched);
    const fields: Record<string, unknown> = {};
    for (const key of Object.keys(set)) {
      const was = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
      // an own "__proto__" stays a property (copyWith keeps it so)
      if (key === '__proto__') Object.defineProperty(fields, key, { value: set[key], writable: true, enumerable: true, configurable: true });
      else fields[key] = frozenCopyAlong(set[key], was);
    }
    return { collection: op.collection, id: op.id, value: copyWith(current, fields) };
  }

  /** The write's SetOps as the puts they are now (putNow), each on the record as the ops before it in the write leave it. */
  private resolved(written: (WriteOp | TextPut)[]): (PutOp | DeleteOp | TextPut)[] {
    const earlier = new Map<string, object | null>();
    const ops: (PutOp | DeleteOp | TextPut)[] = [];
    for (const op of written) {
      const put = 'set' in op ? this.putNow(op, earlier) : op;
      if (!put) continue;
      // a TextPut's value, for a set after it in the same write (none of a run worker's writes has one)
      earlier.set(`${put.collection}\u0000${put.id}`, 'delete' in put ? null : isTextPut(put) ? (JSON.parse(put.json) as object) : put.value);
      ops.push(put);
    }
    return ops;
  }

  private handle(name: string): JournalCollection<object> {
    return (this.handles.get(name) ?? this.collection(name)) as JournalCollection<object>;
  }

  /**
   * Synchronous core of every write: the journal line first, whole, then memory. Throws a
   * StoreWriteError, with nothing changed anywhere, when the line cannot be written.
   * `created`: the puts are of records new to the store (JournalCollection.insert), whose paged
   * values no reader holds yet: they are not put in the value cache, but read from the journal
   * by the first reader (issue 86: 100,000 created threads, never read, each held twice, its
   * value cached and its packed row, ~17 MB of heap and a cache entry's walk and frozen copy a create).
   */
  apply(written: (WriteOp | TextPut)[], created = false): void {
    if (this.closed) throw new Error('store is closed');
    const resolved = written.some((op) => 'set' in op) ? this.resolved(written) : (written as (PutOp | DeleteOp | TextPut)[]);
    // a TextPut this store cannot write as its text is made as the put it stands for
    const ops = resolved.some((op) => isTextPut(op) && !this.takesText(op))
      ? resolved.map((op) => (isTextPut(op) && !this.takesText(op) ? (asPut(op) as PutOp) : op))
      : resolved;
    if (ops.length === 0) return;
    const lines: JournalOp[] = [];
    const entries: (Kept | null)[] = [];
    const paged: boolean[] = [];
    // the values' texts their writer made (a run worker's writes: PutOp.json)
    const given: (string | undefined)[] = [];
    // per line: a new record's put no reader has yet (`created`), whose value is not cached
    const unread: boolean[] = [];
    let seq = this.seq;
    for (const op of ops) {
      // a request waits for its collection's records before it writes (write, JournalCollection)
      if (this.states.get(op.collection)?.load) throw new Error(`collection ${op.collection} is still loading`);
      paged.push(this.fd !== null && op.collection in this.paged);
      if ('delete' in op) {
        lines.push([op.collection, op.id]);
        entries.push(null);
        unread.push(false);
      } else {
        const existing = this.state(op.collection).entry(op.id);
        // a TextPut's value is not here: its line holds its text, and its entry only the seq
        const value = isTextPut(op) ? TEXT_ONLY : op.value;
        const entry = wholeEntry(existing ? existing.seq : ++seq, value);
        unread.push(created && !existing);
        lines.push([op.collection, op.id, entry.seq, value]);
        entries.push(entry);
        given[lines.length - 1] = op.json;
      }
    }
    // what cannot be written as JSON and read back is refused before anything is written
    const { pieces, bytes, places, fresh } = serialise(lines, paged, given);
    const lineStart = this.segmentBytes;
    if (this.fd !== null) this.append(lineBytes(pieces, bytes));
    this.seq = seq;
    ops.forEach((op, i) => {
      const state = this.state(op.collection);
      const entry = entries[i];
      const place = places[i];
      if (entry && place && isTextPut(op)) {
        // its value stays on disk until a reader reads it (not cached: nobody here holds it)
        const id = this.strings.share(op.id);
        state.set(id, {
          seq: entry.seq,
          value: undefined,
          slot: -1,
          file: this.segmentNumber,
          at: lineStart + place.at,
          len: place.len,
          keys: keptKeys(op.kept, this.strings),
        });
      } else if (entry && place) {
        // the large parts' texts to remember, but those of fields written once (WRITTEN_ONCE)
        const once = WRITTEN_ONCE[op.collection];
        const remembered = once && fresh[i]?.length ? fresh[i]!.filter(([key]) => !once.includes(key)) : fresh[i];
        // the value stays where the journal line put it; the cache holds it while it is recent,
        // unless no reader has it yet (`created`): then only its kept fields are taken (copied: keysOf).
        // A value given with its text is the store's own copy (PutOp.json: a worker's, cloned
        // across threads, so built key by key): frozen as it is, not copied a second time
        const cached = !unread[i];
        // copied and weighed in one walk when no part of it is to be remembered (a run's record, a checkpoint's)
        const costed = cached && given[i] === undefined && !remembered?.length ? frozenCopyAndCost(entry.value!) : undefined;
        const value = costed ? costed.copy : !cached ? entry.value! : given[i] === undefined ? frozenCopy(entry.value!) : deepFreeze(entry.value!);
        // the text of its large parts, for the next write of the same parts (a thread's values, at the next run's enqueue)
        if (cached) rememberParts(value, remembered ?? []);
        // the id first: a field kept of this record or of the next few may be the same string (a run's run_id, a checkpoint's writes' cp_key)
        const id = this.strings.share(op.id);
        const keys = keysOf(state.paging!.kept, value, this.strings);
        // made whole at once: fields added to an entry made without them went to a second object (~50 bytes a record)
        const located: Kept = { seq: entry.seq, value: undefined, slot: -1, file: this.segmentNumber, at: lineStart + place.at, len: place.len, keys };
        state.set(id, located);
        // a writer's text (PutOp.json) may differ from the value's own JSON: a snapshot reads that one from disk
        if (cached) this.cache.put(cacheKeyOf(located), value, costed ? costed.cost : cacheCost(value), given[i] === undefined);
      } else if (entry) {
        // kept as a frozen copy: the writer's object may be one V8 keeps costlier frozen (freeze.ts)
        entry.value = frozenCopy(entry.value);
        state.set(op.id, entry);
      } else {
        state.remove(op.id);
      }
      this.dirty.add(this.madeShardKey(op.collection, this.shardOfRecord(op.collection, op.id)));
      if (op.collection in MARKED_COLLECTIONS) this.markCheckpoints(op.id);
    });
    // a checkpoint's put leaves the one before it (and what only that one read) to be read from disk (supersededCheckpoints.ts)
    ops.forEach((op, i) => {
      if (paged[i] && op.collection === CHECKPOINTS && !('delete' in op) && !isTextPut(op)) dropSuperseded(op.value, this.cachedRecords);
    });
    if (this.segmentBytes >= this.compactBytes && (this.segmentBytes >= this.snapshotBytes * this.compactRatio || this.segmentBytes >= this.maxJournalBytes))
      this.snapshotSoon();
  }

  /** The value cache's records as supersededCheckpoints.ts drops them: those in memory now, none read for it. */
  private readonly cachedRecords: CachedRecords = {
    uncache: (collection, id) => {
      const entry = this.states.get(collection)?.heldHolderOfId(id)?.entry(id);
      if (!entry) return undefined;
      const key = cacheKeyOf(entry);
      const value = entry.value ?? this.cache.peek(key);
      this.cache.drop(key);
      return value;
    },
    heldIdsWhere: (collection, id, field, value) => {
      const ids = this.states.get(collection)?.heldHolderOfId(id)?.idsWhere(field, value);
      return ids ? [...ids.forward()] : [];
    },
  };

  private sizeOfShard(key: string, bytes: number): void {
    this.snapshotBytes += bytes - (this.shardBytes.get(key) ?? 0);
    this.shardBytes.set(key, bytes);
  }

  /** One whole line onto the journal, or none of it (cut back to where it began). */
  private append(buffer: Buffer): void {
    const fd = this.fd!;
    const start = this.segmentBytes;
    let written = 0;
    try {
      if (this.cutBackTo !== null) {
        this.io.ftruncateSync(fd, this.cutBackTo);
        this.cutBackTo = null;
      }
      while (written < buffer.length) {
        const n = this.io.writeSync(fd, buffer, written, buffer.length - written);
        if (!(n > 0)) throw Object.assign(new Error(`write returned ${n}`), { code: 'EIO' });
        written += n;
      }
      if (this.fsyncEach) this.io.fsyncSync(fd);
    } catch (err) {
      if (written > 0 || this.fsyncEach) {
        try {
          this.io.ftruncateSync(fd, start);
        } catch (cut) {
          // the next write cuts it first (and fails while it cannot), so no record lands after a fragment
          this.cutBackTo = start;
          this.log.error('could not cut a failed write off the journal; writes wait until it can be', {
            file: this.segmentFile,
            bytes: start,
            error: (cut as Error).message,
          });
        }
      }
      this.failingWrites += 1;
      const refused = ioWriteError(err, this.segmentFile);
      if (this.failingWrites === 1 || this.failingWrites % 100 === 0) {
        this.log.error('journal write failed; the write was refused and nothing of it kept', {
          file: this.segmentFile,
          code: refused.code,
          failure: refused.failure,
          refused: this.failingWrites,
          error: (err as Error).message,
        });
      }
      throw refused;
    }
    if (this.failingWrites > 0) {
      this.log.info('journal writes succeed again', { file: this.segmentFile, refused: this.failingWrites });
      this.failingWrites = 0;
    }
    this.segmentBytes += buffer.length;
  }

  /** Held in process: it always answers. */
  async ping(): Promise<void> {}

  private grouping(groups: RecordGroups): RecordGroups {
    this.groupSets.push(groups);
    return groups;
  }

  /** Records of the grouped collections held in memory now (RecordGroups), all collections together. */
  get heldGroupRecords(): number {
    let held = 0;
    for (const groups of this.groupSets) held += groups.heldRecords;
    return held;
  }

  /**
   * Counts heap held beside the store in the budget of its value cache (the finished runs'
   * event logs, issue 91): AGENTPLANE_STORE_CACHE_MB then bounds the two together. Returns the
   * budget and what the holder calls when it has grown.
   */
  shareCache(held: () => number): CacheShare {
    this.cache.shareWith(held);
    return { budget: this.cache.budget, grown: () => this.cache.trim() };
  }

  /**
   * Drops the cached values nothing has put or read for `unusedForMs`: what an idle server gives
   * back (runtime/idle/idleCollector.ts), the next reader reads them from disk. The bytes dropped.
   */
  releaseUnused(unusedForMs: number): number {
    return this.cache.dropUnused(performance.now() - unusedForMs);
  }

  /** The heap the values in the cache cost now (pagedValues.ts cacheCost). */
  get cachedBytes(): number {
    return this.cache.size;
  }

  async flush(): Promise<void> {
    while (this.compacting) await this.compacting;
    if (this.dirty.size > 0 || this.segments().length > 1) {
      const run = this.compact();
      this.compacting = run.catch(() => undefined).finally(() => (this.compacting = null));
      await run;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.loadTimer) clearTimeout(this.loadTimer);
    this.stopping = true;
    try {
      while (this.compacting) await this.compacting;
      if (this.snapshotPaysAtClose()) await this.flush();
      else this.keepJournal();
    } catch (err) {
      // nothing is lost: the journal still holds every write and is replayed on the next start
      this.log.error('final snapshot failed; the journal keeps every write for the next start', { error: (err as Error).message });
    }
    this.closed = true;
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.files.closeAll();
    this.releaseLock?.();
    this.releaseLock = null;
  }

  /**
   * Whether the final snapshot of a stop rewrites few bytes (closeRewriteBytes) or no more than
   * the journal it retires holds: a stop's cost then follows what was written, and a stop after
   * a few writes spread over the shards of a large store leaves them to the journal instead.
   */
  private snapshotPaysAtClose(): boolean {
    if (!this.dataDir || (this.dirty.size === 0 && this.segments().length <= 1)) return true;
    let journal = 0;
    for (const { file } of this.segments()) journal += fileSize(file);
    let rewrite = 0;
    for (const key of this.dirty) {
      const [name, shard] = splitShardKey(key);
      rewrite += fileSize(shardPath(this.dataDir, name, shard));
    }
    return rewrite <= Math.max(this.closeRewriteBytes, journal);
  }

  /** At a stop that takes no snapshot: the journal ends on a whole line and is on disk, for the next start to replay. */
  private keepJournal(): void {
    if (this.fd === null) return;
    if (this.cutBackTo !== null) {
      this.io.ftruncateSync(this.fd, this.cutBackTo);
      this.cutBackTo = null;
    }
    this.io.fsyncSync(this.fd);
    // each journal file's ops listed beside it, so the next start reads the list, not the file (journalLines.ts)
    for (const segment of this.segments()) {
      try {
        if (fileSize(segment.file) > 0 && !readLineIndex(segment, () => false)) writeLineIndex(segment);
      } catch (err) {
        this.log.warn('could not list the journal file’s ops; the next start scans it instead', { file: segment.file, error: (err as Error).message });
      }
    }
    this.log.info('stopped without a final snapshot: the journal is replayed at the next start', { file: this.segmentFile, dirtyShards: this.dirty.size });
  }

  /** A background snapshot; a failure is logged and tried again later, never thrown at the process. */
  private snapshotSoon(): void {
    if (this.compacting || this.retryTimer || this.closed) return;
    this.compacting = this.compact(true)
      .then(
        () => {
          if (this.snapshotFailures > 0) this.log.info('snapshot written again after failures', { failures: this.snapshotFailures });
          this.snapshotFailures = 0;
        },
        (err: unknown) => {
          if (err instanceof SnapshotStopped) {
            this.log.info("background snapshot stopped by the store's close; the journal keeps every write", { dirtyShards: this.dirty.size });
            return;
          }
          this.snapshotFailures += 1;
          const wait = Math.min(60_000, this.retryMs * 2 ** (this.snapshotFailures - 1));
          this.log.error('snapshot failed; the journal keeps every write; trying again', {
            error: (err as Error).message,
            code: (err as NodeJS.ErrnoException).code,
            failures: this.snapshotFailures,
            retryInMs: wait,
          });
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            this.snapshotSoon();
          }, wait);
          this.retryTimer.unref();
        },
      )
      .finally(() => (this.compacting = null));
  }

  /**
   * Rotates the journal, snapshots the shards written since, then drops the old segments. A
   * background one (`stoppable`) gives way to a close between two shards: the snapshot of a large
   * store rewrites gigabytes (issue 91: 17 s for 4 GB), and a stop waiting for it went past a
   * supervisor's SIGKILL. What it wrote so far is as a kill -9 at that point leaves it: the journal
   * files it kept hold every write since the last whole snapshot, and the next start replays them
   * over the shards in order.
   */
  private async compact(stoppable = false): Promise<void> {
    const goOn = () => {
      if (stoppable && this.stopping) throw new SnapshotStopped();
    };
    if (!this.dataDir) {
      this.dirty.clear();
      return;
    }
    // a snapshot writes shards from the records in memory: the records of the collections it
    // writes are loaded first. Those are all that the journal it retires holds records of (a
    // start marks every shard its journal wrote), so a collection not loaded yet keeps its files
    // as they are and a stop soon after a start does not wait for a long history to load.
    for (const name of byCollection(this.dirty).keys()) {
      await this.states.get(name)?.load?.();
      goOn();
    }
    if (this.cutBackTo !== null) {
      // a journal file must end on a whole line before a newer one begins
      this.io.ftruncateSync(this.fd!, this.cutBackTo);
      this.cutBackTo = null;
    }
    const retired = this.segments().map((s) => s.file);
    this.openSegment();
    this.dirsMade.clear(); // made sure of again by each snapshot: one removed since fails no snapshot after
    const dirty = this.dirty;
    this.dirty = new Set();
    try {
      for (const [name, shards] of byCollection(dirty)) {
        const set = this.state(name);
        const grouped = set.groups;
        if (grouped) {
          for (const [shard, groups] of grouped.inShards(shards, (key) => shardOf(key, this.shardCount))) {
            goOn();
            this.sizeOfShard(shardKey(name, shard), await this.writeGroupedShard(name, grouped, shard, groups));
            const list = (this.listed[name] ??= []);
            if (!list.includes(shard)) list.push(shard);
          }
          continue;
        }
        const state = set as CollectionState;
        const members = await this.membersOf(state, shards);
        for (const [shard, held] of members) {
          goOn();
          const ids = this.idsOfShard(state, shard, held);
          const key = shardKey(name, shard);
          if (state.paging) {
            this.sizeOfShard(key, await this.writePagedShard(name, state, shard, ids));
            const list = (this.listed[name] ??= []);
            if (!list.includes(shard)) list.push(shard);
            continue;
          }
          const records: ShardFile['records'] = {};
          for (const id of ids) {
            const entry = state.records.get(id);
            if (entry) records[id] = [entry.seq, state.valueOf(entry)]; // gone since: its delete is in the new journal
          }
          const file = shardPath(this.dataDir, name, shard);
          this.makeDir(path.dirname(file));
          let written = 0;
          const db = new Low<ShardFile>(
            new ShardAdapter(file, path.relative(this.dataDir, file), async (f, data) => {
              await this.io.writeFile(f, data, this.fsyncEach);
              written = data.length;
            }),
            { records },
          );
          await db.write();
          this.sizeOfShard(key, written);
          const list = (this.listed[name] ??= []);
          if (!list.includes(shard)) list.push(shard);
          // let requests in between shard writes: compaction must not stall the server
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      this.writeMeta();
      if (this.fsyncEach) syncDirs([this.dataDir, ...new Set([...dirty].map((key) => path.join(collectionsDir(this.dataDir!), splitShardKey(key)[0])))]);
    } catch (err) {
      // written again next time; the retired journal files stay until then
      for (const key of dirty) this.dirty.add(key);
      throw err;
    }
    for (const file of retired) {
      removeSegment(file);
      this.files.retire(file);
    }
  }

  /**
   * Writes one shard of a paged collection from the values' bytes where they are (a journal
   * line, the shard's last file), its saved index as the file's trailer, then locates its
   * records in the new file. A record written meanwhile is in the new journal and stays located there.
   */
  private async writePagedShard(name: string, state: CollectionState, shard: number, ids: string[]): Promise<number> {
    function* records(): Generator<[string, Kept]> {
      for (const id of ids) {
        const entry = state.records.get(id);
        if (entry) yield [id, entry]; // gone since: its delete is in the new journal
      }
    }
    const kept = state.paging!.kept;
    let indexed: IndexedRecord[] = [];
    const { file, number, added, bytes } = await this.writeShardText(name, shard, records(), (placed, end) => {
      indexed = placed.map(([id, entry, place]) => this.rowOf(kept, id, entry, place));
      return pagedTrailer(end, kept, indexed, this.few[name]);
    });
    // the file just written holds these: store.json says so at the snapshot's end
    if (this.few[name]) {
      const holds = holdsFew(kept, this.few[name]);
      this.holdsFewIn(
        name,
        shard,
        indexed.some((r) => holds(r.keys)),
      );
    }
    for (const [id, entry, place] of added) if (sameVersion(state.records.get(id), entry)) state.relocate(id, entry, { file: number, ...place }, this.strings);
    await this.dropOldIndexes(name, shard, file);
    return bytes;
  }

  /** A record's row in its shard's saved index. */
  private rowOf(kept: readonly string[], id: string, entry: Kept, place: Omit<Location, 'file'>): IndexedRecord {
    return { id, seq: entry.seq, ...place, keys: entry.keys ?? keysOf(kept, entry.value!, this.strings) };
  }

  /**
   * Writes one shard of a grouped collection (recordGroups.ts), a group after the other, each
   * as it is when its turn comes (a group not held is read from its line), with its index as the
   * file's trailer, one line a group; the groups unchanged meanwhile are read from there from
   * now on, and may be let go.
   */
  private async writeGroupedShard(name: string, set: RecordGroups, shard: number, groups: Group[]): Promise<number> {
    const spans: { group: Group; version: number; state: CollectionState | null; from: number; to: number }[] = [];
    function* records(): Generator<[string, Kept]> {
      let n = 0;
      for (const group of groups) {
        if (!set.unchanged(group, group.version)) continue; // emptied since: its last delete is in the new journal
        const span = { group, version: group.version, state: group.state, from: n, to: n };
        for (const record of set.recordsOf(group)) {
          n += 1;
          yield record;
        }
        span.to = n;
        spans.push(span);
      }
    }
    const kept = set.paging.kept;
    let lines: { at: number; len: number }[] = [];
    const { file, number, added, bytes } = await this.writeShardText(name, shard, records(), (placed, end) => {
      const trailer = groupedTrailer(
        end,
        kept,
        spans.map((span) => ({
          key: span.group.key,
          rows: placed.slice(span.from, span.to).map(([id, entry, place]) => this.rowOf(kept, id, entry, place)),
        })),
      );
      lines = trailer.lines;
      return trailer.text;
    });
    for (const span of spans) {
      const state = span.group.state;
      if (!state) continue;
      for (const [id, entry, place] of added.slice(span.from, span.to))
        if (state.records.get(id) === entry) state.relocate(id, entry, { file: number, ...place }, this.strings);
    }
    spans.forEach((span, i) => {
      if (set.unchanged(span.group, span.version)) set.placed(span.group, number, IN_SHARD, lines[i]!);
    });
    set.trim();
    // no group is read from a file of the layout before the trailer any more: each unchanged one is placed in the shard above, a changed one is held or set aside
    await this.dropOldIndexes(name, shard, file);
    return bytes;
  }

  /**
   * Removes the saved indexes of the layouts before the trailer of the shard just written at
   * `file` (oldIndexes); its directory is looked at once a process, and no write makes one again.
   */
  private async dropOldIndexes(name: string, shard: number, file: string): Promise<void> {
    let found = this.oldIndexes.get(name);
    if (!found) {
      found = new Map();
      for (const entry of fs.readdirSync(path.dirname(file))) {
        const match = /^shard-(\d+)\.(?:[ab]\.)?index$/.exec(entry);
        if (match) found.set(Number(match[1]), [...(found.get(Number(match[1])) ?? []), entry]);
      }
      this.oldIndexes.set(name, found);
    }
    const old = found.get(shard);
    if (!old) return;
    found.delete(shard);
    // a cache, never the truth: one left behind is no longer used (its shard has a trailer now)
    for (const entry of old) await fs.promises.rm(path.join(path.dirname(file), entry), { force: true }).catch(() => undefined);
  }

  /** A shard's directory, made the first time a snapshot writes into it. */
  private makeDir(dir: string): void {
    if (this.dirsMade.has(dir)) return;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.dirsMade.add(dir);
  }

  /**
   * Writes a paged shard's text from the values' bytes where they are, a chunk at a time (a
   * shard of checkpoints is megabytes), then its trailer (`trailerOf`: the records added, each
   * with its place, and where the records end), and opens the new file.
   */
  private async writeShardText(
    name: string,
    shard: number,
    records: Iterable<[string, Kept]>,
    trailerOf: (placed: [string, Kept, Omit<Location, 'file'>][], end: number) => Buffer,
  ): Promise<{ file: string; number: number; added: [string, Kept, Omit<Location, 'file'>][]; bytes: number }> {
    const text = startPagedShard();
    const added: [string, Kept][] = [];
    const files = this.files;
    const appended = () => this.segmentNumber;
    // a value the cache holds, as the bytes of its own JSON (the same text the store wrote for it)
    const cache = this.cache;
    const held = (entry: Kept) => {
      const value = cache.peekOwnText(cacheKeyOf(entry));
      return value && Buffer.from(JSON.stringify(value));
    };
    let batch: [string, Kept][] = [];
    let batchBytes = 0;
    // the records of a batch are read together (readValues), and added in their order
    const addBatch = () => {
      const raws = readValues(
        files,
        batch.map(([, entry]) => (entry.file ? placeOf(entry) : null)),
        appended(),
        (i) => held(batch[i]![1]),
      );
      batch.forEach(([id, entry], i) => {
        addPagedRecord(text, id, entry.seq, raws[i] ?? Buffer.from(JSON.stringify(entry.value)));
        added.push([id, entry]);
      });
      batch = [];
      batchBytes = 0;
    };
    const placed = () => added.map(([id, entry], i): [string, Kept, Omit<Location, 'file'>] => [id, entry, text.placed[i]!]);
    async function* chunks(): AsyncGenerator<Buffer | Buffer[]> {
      for (const record of records) {
        batch.push(record);
        batchBytes += record[1].file ? placeOf(record[1]).len : 0;
        if (batchBytes >= READ_BATCH_BYTES || batch.length >= READ_BATCH_RECORDS) addBatch();
        if (text.pending >= SHARD_TEXT_CHUNK) {
          yield takePagedText(text);
          await new Promise((resolve) => setImmediate(resolve)); // requests go in between
        }
      }
      addBatch();
      yield takePagedText(text);
      yield endPagedShard(text, (end) => trailerOf(placed(), end));
    }
    const file = shardPath(this.dataDir!, name, shard);
    this.makeDir(path.dirname(file));
    await this.io.writeFile(file, chunks(), this.fsyncEach);
    this.files.retire(file); // the file the name held before: its records move to the new one now
    const number = this.files.open(file);
    return { file, number, added: placed(), bytes: text.bytes };
  }

  /**
   * The ids of the collection in each of `shards`, in insertion order. Found by one pass over
   * the collection when it is snapshotted rather than kept in a set per shard: those sets cost
   * ~50 bytes a record for as long as the record lives (~5 MB of a server holding 100,000
   * threads), the pass a hash of each id once per snapshot, which is written no more often
   * than the journal grows by the snapshot's size. It yields now and then, so a large
   * collection does not stall requests; a record written meanwhile is in the new journal.
   */
  private async membersOf(state: CollectionState, shards: Set<number>): Promise<Map<number, Held[]>> {
    const members = new Map<number, Held[]>([...shards].sort((a, b) => a - b).map((shard) => [shard, []]));
    let seen = 0;
    const numbered = state.records.numbered?.();
    if (numbered) {
      // a packed collection's records by number, their ids' text made into no string: the strings
      // of every record of the shards written, held until the snapshot ended, were ~6 MB of
      // garbage a snapshot of 100,000 runs left on the heap (issue 91)
      for (const [number, text] of numbered) {
        members.get(typeof text === 'string' ? shardOf(text, this.shardCount) : shardOfCodes(text, this.shardCount))?.push(number);
        if (++seen % SCAN_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      return members;
    }
    for (const id of state.records.keys()) {
      members.get(shardOf(id, this.shardCount))?.push(id);
      if (++seen % SCAN_CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return members;
  }

  /**
   * The ids of the members of `shard` found by membersOf, as their shard is written: a number
   * let go since (its record deleted: the delete is in the new journal) may name another record
   * by now, which is written in its own shard only.
   */
  private idsOfShard(state: CollectionState, shard: number, held: Held[]): string[] {
    const handles = state.records.handles;
    if (!handles) return held as string[];
    const ids: string[] = [];
    for (const number of held as number[]) {
      const id = handles.idOf(number);
      if (shardOf(id, this.shardCount) === shard) ids.push(id);
    }
    return ids;
  }

  /** The shards store.json lists as holding `name`'s few values, when it lists them for the values this store looks up; null otherwise (every shard is opened). */
  private fewListed(name: string, listed: FewShards | undefined): Set<number> | null {
    const few = this.few[name];
    if (!few || !listed || JSON.stringify(listed.values) !== JSON.stringify(few)) return null;
    const shards = new Set(listed.shards);
    // trusted until each is opened (holdsFewIn): kept as store.json listed it
    this.fewShards.set(name, new Set(shards));
    return shards;
  }

  /** Whether shard `n`'s file holds a record with one of `name`'s few values (null: not known). */
  private holdsFewIn(name: string, n: number, holds: boolean | null): void {
    if (!this.few[name]) return;
    let shards = this.fewShards.get(name);
    if (!shards) this.fewShards.set(name, (shards = new Set()));
    let unknown = this.fewUnknown.get(name);
    if (!unknown) this.fewUnknown.set(name, (unknown = new Set()));
    if (holds === null) unknown.add(n);
    else unknown.delete(n);
    if (holds) shards.add(n);
    else shards.delete(n);
  }

  /** store.json's Meta.few: the collections whose shards holding few values are all known. */
  private fewMeta(): { few?: Record<string, FewShards> } {
    const few: Record<string, FewShards> = {};
    for (const [name, values] of Object.entries(this.few)) {
      if (!(name in this.paged) || name in this.grouped || this.fewUnknown.get(name)?.size) continue;
      const shards = this.fewShards.get(name) ?? new Set<number>();
      few[name] = { values: values as Record<string, string[]>, shards: [...shards].sort((a, b) => a - b) };
    }
    return Object.keys(few).length ? { few } : {};
  }

  private writeMeta(): void {
    // the seq: every record written so far has one no higher, those of the snapshot's files included (Meta.seq)
    const meta: Meta = { version: 1, shards: this.shardCount, collections: this.listed, seq: this.seq, ...this.fewMeta() };
    writeFileAtomicSync(path.join(this.dataDir!, META_FILE), JSON.stringify(meta));
  }

  private openSegment(): void {
    if (!this.dataDir) return;
    const number = this.segment + 1;
    const file = path.join(journalDir(this.dataDir), `${String(number).padStart(8, '0')}.log`);
    const fd = fs.openSync(file, 'a', FILE_MODE); // the new one first: a failure leaves the old one in use
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = fd;
    this.segment = number;
    this.segmentFile = file;
    this.segmentBytes = fs.fstatSync(fd).size;
    this.segmentNumber = this.files.open(file);
    if (this.fsyncEach) syncDirs([journalDir(this.dataDir)]); // the new file's name survives power loss too
  }

  private segments(): { number: number; file: string }[] {
    return this.dataDir ? segments(this.dataDir) : [];
  }

  private state(name: string): RecordSet {
    let state = this.states.get(name);
    if (!state) {
      const kept = this.paged[name];
      const paging = kept ? { kept, files: this.files, cache: this.cache } : null;
      const naming = this.grouped[name];
      const dir = this.dataDir!;
      state =
        paging && naming
          ? this.grouping(new RecordGroups(paging, naming, this.heldRecords, { shardFileOf: (key) => shardPath(dir, name, shardOf(key, this.shardCount)) }))
          : new CollectionState(paging, true);
      this.states.set(name, state);
    }
    return state;
  }

  /** shardKey(collection, shard), the same string each time (shardKeys). */
  private madeShardKey(collection: string, shard: number): string {
    let keys = this.shardKeys.get(collection);
    if (!keys) this.shardKeys.set(collection, (keys = []));
    return (keys[shard] ??= shardKey(collection, shard));
  }

  /** The shard a record is snapshotted in: by its id, or a grouped collection's by its group. */
  private shardOfRecord(name: string, id: string): number {
    return shardOf(name in this.grouped ? groupOf(id) : id, this.shardCount);
  }
}

/** Where a put's value is in its journal line: bytes from the line's start, and its length. */
type Place = Omit<Location, 'file'>;

/**
 * The text of a put whose value is paged, pushed onto `pieces` as pieces, and where the value is
 * in it (bytes from the text's start, and its length in bytes). `triedWhole`: its record's whole
 * text was made and found to hold a part to keep (recordPieces).
 */
function pagedOpText(
  op: [string, string, number, object],
  pieces: LinePiece[],
  given?: string,
  triedWhole = false,
): { at: number; len: number; fresh: FreshPart[] } {
  const head = `${JSON.stringify([op[0], op[1], op[2]]).slice(0, -1)},`;
  pieces.push(head);
  const from = pieces.length;
  let fresh: FreshPart[] = [];
  if (given === undefined) {
    const made = recordPieces(op[3], pieces, triedWhole);
    if (!made.written) throw new Error('its value has no JSON');
    fresh = made.fresh;
  } else pieces.push(given);
  let len = 0;
  for (let i = from; i < pieces.length; i += 1) len += Buffer.byteLength(pieces[i]!);
  pieces.push(']');
  return { at: Buffer.byteLength(head), len, fresh };
}

/**
 * The journal line of a batch, as JSON.stringify(lines) writes it and its newline, as pieces of
 * text (their join is the line) and its length in bytes, with where each value that `paged` marks
 * sits in it; or a StoreWriteError naming the record that cannot be one. `given`: a paged value's
 * text its writer made (PutOp.json), written as it is.
 */
function serialise(
  lines: JournalOp[],
  paged: boolean[],
  given: (string | undefined)[] = [],
): { pieces: LinePiece[]; bytes: number; places: (Place | undefined)[]; fresh: FreshPart[][] } {
  let pieces: LinePiece[] | undefined;
  let bytes = 0;
  let problem = '';
  const places: (Place | undefined)[] = [];
  const fresh: FreshPart[][] = [];
  try {
    if (!paged.includes(true)) {
      const text = `${JSON.stringify(lines)}\n`;
      pieces = [text];
      bytes = Buffer.byteLength(text);
    } else {
      // one record written whole (a created thread, a run's status): the line as one text, the
      // text d5486dc wrote by one stringify of it, its value found after the head
      // `[["name","id",seq,` and before `]]` (not a text per part, their join and the newline
      // added to a copy: ~1 KB of garbage a write). A head of strings written as they are
      // (plainHeadLength) is counted and put around the value's stringify: JSON.stringify walks
      // two arrays fewer, each with its look-up of a toJSON (the value's top has none:
      // mayBeWrittenWhole); another is made as text, with the line in one stringify.
      const one = lines.length === 1 && lines[0]!.length === 4 && given[0] === undefined && mayBeWrittenWhole(lines[0]![3]);
      let whole: string | undefined;
      let headChars = 0;
      let headBytes = 0;
      if (one) {
        const op = lines[0] as [string, string, number, object];
        const collection = op[0];
        const id = op[1];
        const seq = op[2];
        const value = op[3];
        headChars = plainHeadLength(collection, id, seq);
        if (headChars >= 0) {
          whole = `[["${collection}","${id}",${seq},${JSON.stringify(value)}]]`;
          headBytes = headChars;
        } else {
          whole = JSON.stringify(lines);
          const head = JSON.stringify([collection, id, seq]);
          headChars = head.length;
          headBytes = Buffer.byteLength(head);
        }
      }
      // the value's characters in the line `[` head-but-its-`]` `,` value `]]`
      if (whole !== undefined && writtenWhole(lines[0]![3]!, whole.length - headChars - 3)) {
        const at = 1 + headBytes;
        bytes = Buffer.byteLength(whole) + 1;
        places[0] = { at, len: bytes - 1 - at - 2 };
        fresh[0] = [];
        pieces = [whole, '\n'];
      } else {
        const made: LinePiece[] = ['['];
        bytes = 1; // the opening bracket
        lines.forEach((op, i) => {
          if (i > 0) made.push(',');
          if (paged[i] && op.length === 4) {
            // its record's whole text made above and found to hold a part to keep: not made again
            const { at, len, fresh: kept } = pagedOpText(op, made, given[i], whole !== undefined);
            places[i] = { at: bytes + at, len };
            fresh[i] = kept;
            bytes += at + len + 2; // its closing bracket and the comma after it
          } else {
            const part = JSON.stringify(op);
            made.push(part);
            bytes += Buffer.byteLength(part) + 1;
          }
        });
        // the last op's comma stands for the closing bracket; then the newline
        made.push(']\n');
        bytes += 1;
        pieces = made;
      }
    }
  } catch (err) {
    problem = (err as Error).message; // a cycle, a BigInt, or nested too deep for the stack
  }
  // the depth is checked on the values, not on the line's text: a checkpoint's text inside a
  // record is a long string that a scan of the line would walk character by character. A line
  // shorter than two bytes a level (each level opens and closes a bracket) holds no value nested
  // too deep, and with no part to remember (fresh) nothing else of the walk is needed: not walked
  // (a created thread's record, ~250 bytes, was walked key by key, issue 86)
  const walked = pieces !== undefined && (bytes > 2 * STORE_MAX_DEPTH || fresh.some((parts) => parts.length > 0));
  // a TextPut's depth was checked by its writer (textPut.ts): its value is not here
  const tooDeep = walked ? lines.find((op, i) => op.length === 4 && op[3] !== TEXT_ONLY && recordNestsTooDeep(op[3], fresh[i])) : undefined;
  if (pieces !== undefined && !tooDeep) return { pieces, bytes, places, fresh };
  if (tooDeep) problem = `it nests objects and arrays deeper than ${STORE_MAX_DEPTH} levels`;
  const which =
    tooDeep ??
    lines.find((op) => {
      try {
        JSON.stringify(op);
        return false;
      } catch {
        return true;
      }
    });
  const named = which ? `${which[0]}/${which[1]}` : 'a record';
  throw new StoreWriteError('unserialisable', `The record ${named} cannot be stored: ${problem}. Nothing was stored.`);
}

/** A string JSON.stringify writes as it is between its quotes, in as many bytes as characters: printable ASCII but `"` and `\\`. */
const WRITTEN_AS_IT_IS = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The characters of JSON.stringify([collection, id, seq]), a put's head in its journal line,
 * and so its bytes, when both strings are written as they are (WRITTEN_AS_IT_IS); else -1.
 * Counted, not written: a created thread's line made that text only to measure it (issue 86).
 */
export function plainHeadLength(collection: string, id: string, seq: number): number {
  if (!WRITTEN_AS_IT_IS.test(collection) || !WRITTEN_AS_IT_IS.test(id)) return -1;
  // `[` `"`collection`"` `,` `"`id`"` `,` seq `]`
  return collection.length + id.length + String(seq).length + 8;
}

/**
 * Where lines are encoded before they are written: one buffer, reused. A line is written
 * synchronously and the buffer is free again once append returns; a fresh buffer a line was
 * a new ArrayBuffer for every line over 4 KB (a run's end with its thread's values), each
 * allocated and then collected (issue 86: ~0.1 ms of the main thread a run on 100 threads).
 * Lines over LINE_SCRATCH_MAX get a buffer of their own, so one huge line is not held for ever.
 */
const LINE_SCRATCH_MAX = 1 << 20;
let lineScratch = Buffer.allocUnsafeSlow(64 * 1024);

/** A buffer of at least `bytes`: the scratch buffer (grown), or one of its own for a line over LINE_SCRATCH_MAX. */
function lineBuffer(bytes: number): Buffer {
  if (bytes > LINE_SCRATCH_MAX) return Buffer.allocUnsafeSlow(bytes);
  if (bytes > lineScratch.length) lineScratch = Buffer.allocUnsafeSlow(Math.min(LINE_SCRATCH_MAX, 2 ** Math.ceil(Math.log2(bytes))));
  return lineScratch;
}

/**
 * A line's pieces (serialise) encoded as UTF-8 into `bytes` of a buffer, each piece written where
 * the last ended: no joined text first. The bytes are valid until the next line is encoded.
 */
function lineBytes(pieces: readonly LinePiece[], bytes: number): Buffer {
  if (pieces.length === 1 && typeof pieces[0] !== 'string') return pieces[0]!;
  const buffer = lineBuffer(bytes);
  let at = 0;
  // a line written whole ends in a piece that is its newline (serialise): set as the byte it is, not encoded by a call of its own
  for (const piece of pieces) {
    if (piece === '\n') buffer[at++] = 0x0a;
    else if (typeof piece === 'string') at += buffer.write(piece, at);
    else at += piece.copy(buffer, at);
  }
  if (at !== bytes) throw new Error(`a journal line of ${bytes} bytes was encoded as ${at}`);
  return buffer.subarray(0, bytes);
}

/**
 * Whether a record nests deeper than STORE_MAX_DEPTH: its parts the store wrote and kept before
 * (writtenParts.ts) were checked then, at the same place in a record, and are not walked again.
 * The parts whose text it will remember (`fresh`) get their heap estimate and their text's in
 * the same walk (heapWithin), for rememberParts: a thread's values at a run's end are walked
 * once, not twice, and their strings read as narrow or not from their text; those made from the
 * run worker's text (frozenFromJson) not at all here, measured in the walk that froze them.
 */
function recordNestsTooDeep(value: object, fresh: FreshPart[] = []): boolean {
  if (Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return nestsDeeper(value, STORE_MAX_DEPTH);
  for (const key of Object.keys(value)) {
    const part = (value as Record<string, unknown>)[key];
    if (knownPart(part)) continue;
    const kept = fresh.find((f) => f[0] === key);
    // a part made from its JSON text (a run's values at its end: freeze.ts frozenFromJson) was
    // measured as it was made, its depth and heap taken in the walk that froze it: not walked again
    const made = part !== null && typeof part === 'object' ? madeFromJson(part) : undefined;
    if (made) {
      if (made.depth > STORE_MAX_DEPTH - 1) return true;
      if (kept && kept[1] === made.text) kept[2] = made.heap;
      continue;
    }
    const text = kept && jsonTextBytes(kept[1]);
    const heap = text && heapWithin(part, STORE_MAX_DEPTH - 1, text.narrow);
    if (heap === TOO_DEEP) return true;
    if (heap !== undefined) kept![2] = heap + text!.bytes;
    else if (nestsDeeper(part, STORE_MAX_DEPTH - 1)) return true;
  }
  return false;
}

/** A journal file gone (retired by a snapshot, or empty): its line index first, so none outlives it. */
function removeSegment(file: string): void {
  fs.rmSync(atomicTmpOf(lineIndexOf(file)), { force: true }); // a list whose writing a kill -9 cut short
  fs.rmSync(lineIndexOf(file), { force: true });
  fs.rmSync(file, { force: true });
}

/** A background snapshot given way to the store's close (compact). */
class SnapshotStopped extends Error {
  constructor() {
    super('snapshot stopped: the store is closing');
  }
}

/** A file's size in bytes; 0 when it is not there. */
function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** With fsync on: directory entries (new files, renames) made durable too. */
function syncDirs(dirs: string[]): void {
  for (const dir of dirs) {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** An op of the journal replayed in a paged collection's load: a put has a seq, and its value given or where it is in its journal file. */
interface Replayed {
  id: string;
  seq?: number;
  value?: object;
  where?: Location;
  /** Fields of the value read so far by look-ups before the load (replayedField). */
  fields?: Map<string, { value: unknown }>;
}

/** How many bytes of a replayed value are read first for one of its fields (a run's status lies ~270 bytes in). */
const FIELD_PREFIX = 1024;

/** A paged collection's records to load after the start: those read at the start, the shards whose saved index describes them, then the journal's writes. */
interface PagedLoad {
  records: Map<string, Kept>;
  indexed: { n: number; number: number; index: DescribingIndex | TrailerIndex }[];
  /** The shards opened in the load, not at the start (openPagedShard): a grouped collection's, and those whose index heads list no few values, when store.json kept the seq. */
  unopened: number[];
  journal: Replayed[];
  /** The records the saved indexes' heads list as holding one of the few values (fewBefore), until the load begins. */
  holding: { id: string; seq: number; keys: readonly unknown[]; where: Location }[];
  begun: boolean;
}

function shardKey(collection: string, shard: number): string {
  return `${collection}\u0000${shard}`;
}

function splitShardKey(key: string): [string, number] {
  const at = key.lastIndexOf('\u0000');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

/** Dirty shard keys grouped by collection. */
function byCollection(keys: Iterable<string>): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const key of keys) {
    const [name, shard] = splitShardKey(key);
    let shards = out.get(name);
    if (!shards) out.set(name, (shards = new Set()));
    shards.add(shard);
  }
  return out;
}
