// The embedded store's data directory on disk, read strictly: its layout, who owns it (the
// LOCK file), its permissions, and every file read with the problem named — file, line and
// what to do — rather than skipped. journalStore.ts opens it; `agentplane store check|repair`
// (storeTool.ts) reports and mends it with the same readers.
//
//   DIR/LOCK                          pid of the server that has the directory open
//   DIR/store.json                    {version, shards, collections: {name: [shard numbers]}, seq, few}
//   DIR/journal/00000001.log          one JSON line per acknowledged write
//   DIR/collections/<name>/shard-N.json   lowdb snapshot {records: {id: [seq, value]}}
//   DIR/collections/<name>/shard-N.json   a paged collection's: one record a line, its saved index as a trailer (shardTrailer.ts)
//   DIR/collections/<name>/shard-N.index  a paged shard's saved index of the layout before (pagedIndex.ts): a cache, never the truth
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { StoreDamagedError, StoreLockedError } from '../../shared/storeErrors.ts';

export const META_FILE = 'store.json';
export const LOCK_FILE = 'LOCK';
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export interface Entry {
  seq: number;
  value: object;
}
export type ShardFile = { records: Record<string, [number, object]> };
/** One journal line: a batch of puts `[collection, id, seq, value]` and deletes `[collection, id]`. */
export type JournalOp = [string, string, number, object] | [string, string];
export interface Meta {
  version: 1;
  shards: number;
  /** The snapshot files written so far, per collection; absent in directories from before it was kept. */
  collections?: Record<string, number[]>;
  /**
   * The store's seq when this file was written (each snapshot writes it before the journal it
   * retires goes): at least every seq the snapshot's files hold, so a start need not read them
   * to number the next write. Absent in directories from before it was kept (then the grouped
   * shards' index heads are read at the start for it) and left out by a writer that does not
   * keep it, so a value present is never behind the files.
   */
  seq?: number;
  /**
   * Per paged collection with values few of its records hold (pagedCollections.ts FEW_VALUES),
   * those values and the shards whose files hold a record with one, as the files were when this
   * was written (issue 91): a start opens only these before the collection's load. A shard not
   * listed may hold one since only through a write the journal still has (a snapshot removes its
   * journal only after writing this file). Absent (older directories, `store repair`, a shard
   * whose holders are not known): every shard's index head is read at the start, as before.
   */
  few?: Record<string, FewShards>;
}

/** A collection's few values (as FEW_VALUES names them) and the shards whose files hold a record with one. */
export interface FewShards {
  values: Record<string, string[]>;
  shards: number[];
}

/** Something wrong in the directory, relative to it, with what `store repair` does about it. */
export interface Problem {
  file: string;
  line?: number;
  what: string;
  repair: string;
}

export const journalDir = (dir: string) => path.join(dir, 'journal');
export const collectionsDir = (dir: string) => path.join(dir, 'collections');
export const shardPath = (dir: string, name: string, shard: number) => path.join(collectionsDir(dir), name, `shard-${shard}.json`);

// FNV-1a: cheap and stable across runs, so a record always lands in the same file
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * String.prototype.charCodeAt called on the string it is given, not looked up on it: ids come as
 * strings of many kinds (flat, joined, sliced, internalized: a string's map), so `id.charCodeAt`
 * and `id.length` in the loop were loads V8 had seen on more than four maps, each a megamorphic
 * look-up (issue 86: 73 a POST /threads, a char each of its 36-character id, ~4,700 instructions).
 */
const charCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt) as (text: string, at: number) => number;

export function shardOf(id: string, shardCount: number): number {
  let hash = FNV_OFFSET;
  const length = id.length;
  for (let i = 0; i < length; i += 1) {
    hash ^= charCodeAt(id, i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return (hash >>> 0) % shardCount;
}

/** shardOf of an id given as its characters' codes, each below 256 (a packed id's text: packedIds.ts), without making it a string. */
export function shardOfCodes(codes: Uint8Array, shardCount: number): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < codes.length; i += 1) {
    hash ^= codes[i]!;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return (hash >>> 0) % shardCount;
}

// ---------------------------------------------------------------- permissions

/** Creates `dir` (and parents) private to this user; an existing one too open is tightened. */
export function privateDir(dir: string, warn: (msg: string, fields: Record<string, unknown>) => void): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const mode = fs.statSync(dir).mode & 0o777;
  if (mode & 0o077) {
    try {
      fs.chmodSync(dir, DIR_MODE);
      warn('data directory was readable by other users; made it private (0700)', { dir, was: mode.toString(8) });
    } catch (err) {
      warn('data directory is readable by other users and could not be made private', { dir, mode: mode.toString(8), error: (err as Error).message });
    }
  }
}

/** Files written before permissions were kept (0644) become 0600 when read. */
export function privateFile(file: string): void {
  try {
    if (fs.statSync(file).mode & 0o077) fs.chmodSync(file, FILE_MODE);
  } catch {
    // not ours to change: the directory (0700) still keeps it private
  }
}

// fs's callback calls, looked up on each call (a test injects a full disk by replacing fs.open)
const openFile = (file: string, flags: string, mode: number) =>
  new Promise<number>((resolve, reject) => fs.open(file, flags, mode, (err, fd) => (err ? reject(err) : resolve(fd))));
const writeTo = (fd: number, buffer: Buffer, offset: number) =>
  new Promise<number>((resolve, reject) => fs.write(fd, buffer, offset, buffer.length - offset, null, (err, n) => (err ? reject(err) : resolve(n))));
const writevTo = (fd: number, buffers: Buffer[]) =>
  new Promise<number>((resolve, reject) => fs.writev(fd, buffers, null, (err, n) => (err ? reject(err) : resolve(n))));
const done = (resolve: () => void, reject: (err: Error) => void) => (err: Error | null) => (err ? reject(err) : resolve());
const syncFile = (fd: number) => new Promise<void>((resolve, reject) => fs.fsync(fd, done(resolve, reject)));
const closeFile = (fd: number) => new Promise<void>((resolve, reject) => fs.close(fd, done(resolve, reject)));
const renameFile = (from: string, to: string) => new Promise<void>((resolve, reject) => fs.rename(from, to, done(resolve, reject)));
const unlinkFile = (file: string) => new Promise<void>((resolve, reject) => fs.unlink(file, done(resolve, reject)));

/** `buffer` onto `fd` where it stands, whole (a write may take part of it). */
async function writeWhole(fd: number, buffer: Buffer): Promise<void> {
  for (let at = 0; at < buffer.length;) at += await writeTo(fd, buffer, at);
}

/** `buffers` onto `fd` where it stands, one after the other, whole: one writev, not a copy of them into one buffer first. */
async function writeAll(fd: number, buffers: readonly Buffer[]): Promise<void> {
  let rest = buffers.filter((buffer) => buffer.length > 0);
  while (rest.length > 0) {
    let written = await writevTo(fd, rest);
    let i = 0;
    for (; i < rest.length && written >= rest[i]!.length; i += 1) written -= rest[i]!.length;
    rest = rest.slice(i);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}

/** What a file is written from: its text, its bytes, or chunks as they are made (each a buffer, or buffers to write one after the other). */
export type FileData = string | Buffer | AsyncIterable<Buffer | readonly Buffer[]>;

/**
 * Creates `file` afresh, private: a leftover (a write a crash cut short) keeps its old mode, so it
 * is removed first, but only when there is one (an unlink before each of a snapshot's ~540 files
 * was a syscall each, issue 91).
 */
async function openNew(file: string): Promise<number> {
  try {
    return await openFile(file, 'wx', FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  await removeFile(file);
  return openFile(file, 'wx', FILE_MODE);
}

/** Removes a file if it is there. */
async function removeFile(file: string): Promise<void> {
  try {
    await unlinkFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The temporary file an atomic write of `file` writes before its rename: a kill -9 may leave it. */
export const atomicTmpOf = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.tmp`);

/**
 * Writes a whole file or nothing: a private temporary file renamed over the old one. Chunks are
 * written as they come. Through fs's callback calls on a descriptor rather than fs.promises: a
 * snapshot writes two files a shard (~560 after the bench's runs-phase warm-up), and
 * fs.promises' FileHandle and `rm` (rimraf, an lstat before the unlink) cost its main thread
 * more (issue 91).
 */
export async function writeFileAtomic(file: string, data: FileData, sync: boolean): Promise<void> {
  const tmp = atomicTmpOf(file);
  try {
    const fd = await openNew(tmp);
    try {
      if (typeof data === 'string') await writeWhole(fd, Buffer.from(data));
      else if (Buffer.isBuffer(data)) await writeWhole(fd, data);
      else for await (const chunk of data) await (Buffer.isBuffer(chunk) ? writeWhole(fd, chunk) : writeAll(fd, chunk));
      if (sync) await syncFile(fd);
    } finally {
      await closeFile(fd);
    }
    await renameFile(tmp, file);
  } catch (err) {
    await removeFile(tmp).catch(() => undefined); // give the space back
    throw err;
  }
}

export function writeFileAtomicSync(file: string, data: string): void {
  const tmp = atomicTmpOf(file);
  fs.rmSync(tmp, { force: true });
  fs.writeFileSync(tmp, data, { mode: FILE_MODE });
  fs.renameSync(tmp, file);
}

// ---------------------------------------------------------------- the lock

const heldHere = new Set<string>();

interface LockHolder {
  pid: number;
  hostname?: string;
  since?: string;
}

function readLock(file: string): LockHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && holder.pid > 0 ? holder : null;
  } catch {
    return null; // gone, or cut short by a crash before the pid was written
  }
}

function alive(pid: number, file: string): boolean {
  // this process's own pid is live only if it took the lock itself: a container restarted
  // on the same volume runs as the same pid (often 1) as the one that left the lock
  if (pid === process.pid) return heldHere.has(file);
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
  return !exited(pid);
}

/**
 * Whether the process has exited and waits only to be reaped (state Z, zombie, or X, dead):
 * kill(pid, 0) still finds it until its parent waits for it, which a supervisor restarting
 * a server killed with kill -9 may do only after the restart. Where there is no /proc (not
 * Linux), kill(pid, 0) alone decides.
 */
function exited(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) state ...": the command name may hold spaces and parentheses, the state follows its last ')'
  const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  return state === 'Z' || state === 'X';
}

/**
 * Takes the data directory for this process: LOCK created with O_EXCL holding the pid. A lock
 * whose pid is not running (left by kill -9, reaped or not yet) is taken over; a live holder
 * is refused by name.
 */
export function acquireLock(dir: string, warn: (msg: string, fields: Record<string, unknown>) => void): () => void {
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; ; attempt += 1) {
    try {
      const fd = fs.openSync(file, 'wx', FILE_MODE);
      try {
        fs.writeSync(fd, JSON.stringify({ pid: process.pid, hostname: os.hostname(), since: new Date().toISOString() }) + '\n');
      } finally {
        fs.closeSync(fd);
      }
      heldHere.add(file);
      return () => {
        heldHere.delete(file);
        if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
    }
    const holder = readLock(file);
    if (holder && alive(holder.pid, file)) {
      throw new StoreLockedError(
        `data directory ${dir} is in use by another agentplane server (pid ${holder.pid}${holder.hostname ? ` on ${holder.hostname}` : ''}, since ${holder.since ?? 'unknown'}): ` +
          `one directory has one server. Stop that server, or give this one another --data directory. ` +
          `If no server uses it (the directory was copied from elsewhere), delete ${file}.`,
        holder.pid,
      );
    }
    warn('taking over a stale data directory lock (its process is gone)', { file, pid: holder?.pid ?? null });
    fs.rmSync(file, { force: true });
  }
}

// ---------------------------------------------------------------- reading

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

function validOp(op: unknown): op is JournalOp {
  if (!Array.isArray(op) || typeof op[0] !== 'string' || typeof op[1] !== 'string') return false;
  if (op.length === 2) return true;
  return op.length === 4 && typeof op[2] === 'number' && isObject(op[3]);
}

/** A journal line as its batch, or why it is not one. */
export function parseBatch(text: string): JournalOp[] | string {
  let batch: unknown;
  try {
    batch = JSON.parse(text);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  if (!Array.isArray(batch) || !batch.every(validOp)) return 'not a journal record (expected [[collection, id, seq, value] or [collection, id], …])';
  return batch;
}

export interface SegmentRead {
  number: number;
  file: string;
  batches: JournalOp[][];
  /** Lines that are whole (end in a newline) but not records. */
  bad: { line: number; bytes: number; why: string }[];
  /** Byte ranges of the good lines, newline included (what repair keeps). */
  good: [number, number][];
  /** A last line without its newline: a write cut short, never acknowledged. */
  torn?: { line: number; offset: number; bytes: number };
}

export function segments(dir: string): { number: number; file: string }[] {
  const at = journalDir(dir);
  if (!fs.existsSync(at)) return [];
  return fs
    .readdirSync(at)
    .filter((f) => /^\d+\.log$/.test(f))
    .map((f) => ({ number: Number(f.slice(0, -4)), file: path.join(at, f) }))
    .sort((a, b) => a.number - b.number);
}

export function readSegment(segment: { number: number; file: string }): SegmentRead {
  const buf = fs.readFileSync(segment.file);
  const read: SegmentRead = { ...segment, batches: [], bad: [], good: [] };
  let start = 0;
  for (let line = 1; start < buf.length; line += 1) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) {
      read.torn = { line, offset: start, bytes: buf.length - start };
      break;
    }
    if (nl > start) {
      const batch = parseBatch(buf.toString('utf8', start, nl));
      if (typeof batch === 'string') read.bad.push({ line, bytes: nl - start, why: batch });
      else {
        read.batches.push(batch);
        read.good.push([start, nl + 1]);
      }
    }
    start = nl + 1;
  }
  return read;
}

/** store.json, or the problem with it. */
export function readMeta(dir: string): Meta | Problem | null {
  const file = path.join(dir, META_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { file: META_FILE, what: `cannot be read (${(err as Error).message})`, repair: 'moved aside and written again from the shard files' };
  }
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (err) {
    return { file: META_FILE, what: `is not JSON (${(err as Error).message})`, repair: 'moved aside and written again from the shard files' };
  }
  const m = meta as Partial<Meta>;
  const listOk =
    m.collections === undefined ||
    (isObject(m.collections) && Object.values(m.collections).every((l) => Array.isArray(l) && l.every((n) => Number.isInteger(n) && n >= 0)));
  if (!isObject(meta) || !Number.isInteger(m.shards) || (m.shards as number) < 1 || !listOk) {
    return {
      file: META_FILE,
      what: 'is not a store description (expected {"version":1,"shards":N,"collections":{…}})',
      repair: 'moved aside and written again from the shard files',
    };
  }
  // a seq that is not a count is ignored, not refused: the start then finds it in the files, as for a directory from before it was kept
  const seq = Number.isSafeInteger(m.seq) && (m.seq as number) >= 0 ? { seq: m.seq as number } : {};
  // so are shards holding few values not listed as such: the start then reads every shard's index head for them
  const few = fewShardsOk(m.few) ? { few: m.few } : {};
  return { version: 1, shards: m.shards as number, ...(m.collections ? { collections: m.collections } : {}), ...seq, ...few };
}

function fewShardsOk(few: unknown): few is Record<string, FewShards> {
  if (!isObject(few)) return false;
  return Object.values(few).every((listed: unknown) => {
    if (!isObject(listed)) return false;
    const { shards, values } = listed as Partial<Record<keyof FewShards, unknown>>;
    if (!Array.isArray(shards) || !shards.every((n) => Number.isInteger(n) && n >= 0) || !isObject(values)) return false;
    return Object.values(values).every((vs: unknown) => Array.isArray(vs) && vs.every((v) => typeof v === 'string'));
  });
}

export const isProblem = (v: unknown): v is Problem => isObject(v) && 'what' in v && 'repair' in v;

/** The shard files present on disk, per collection. */
export function shardFilesOnDisk(dir: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  const at = collectionsDir(dir);
  if (!fs.existsSync(at)) return out;
  for (const name of fs.readdirSync(at)) {
    if (!fs.statSync(path.join(at, name)).isDirectory()) continue;
    out[name] = fs
      .readdirSync(path.join(at, name))
      .map((f) => /^shard-(\d+)\.json$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }
  return out;
}

/** lowdb's file adapter for one shard: read strictly (the file named on any problem), written atomically and privately. */
export class ShardAdapter implements Adapter<ShardFile> {
  constructor(
    readonly file: string,
    private readonly relative: string,
    private readonly writeFile: (file: string, data: Buffer) => Promise<void> = (file, data) => writeFileAtomic(file, data, false),
  ) {}

  async read(): Promise<ShardFile | null> {
    const read = readShardText(fs.readFileSync(this.file, 'utf8'), this.relative);
    if (isProblem(read)) throw new StoreDamagedError(read.what);
    return read;
  }

  async write(data: ShardFile): Promise<void> {
    return this.writeFile(this.file, await shardBytes(data));
  }
}

/** How much of a shard's text is made between two turns of the event loop. */
export const SHARD_TEXT_CHUNK = 128 * 1024;

/**
 * The first batch of a shard's text is one record, and each next one at most twice the last:
 * a record's size is known only once it is text, and a shard of checkpoints holds records of
 * megabytes, so a batch grows only as fast as the records before it show they are small.
 */
const FIRST_BATCH = 1;

/**
 * A shard's file, the UTF-8 of JSON.stringify(data), made and encoded a batch of records at a
 * time, with a turn of the event loop after each batch (issue 67 point 5): a background
 * snapshot stringified a shard whole and the file write encoded the text whole, and a shard of
 * the checkpoints of threads with long histories is megabytes — one synchronous turn (~20 ms
 * for 2 MB, most of it the encoding) that every request arriving meanwhile waited for. A batch
 * is one JSON.stringify of an object holding its records, sized from the last one to make about
 * SHARD_TEXT_CHUNK of text (one record when a record alone is that much), and encoded as
 * JSON.stringify made it: a flat string (encoding a string built by concatenation cost twice
 * the CPU). A record at a time cost ~4–8 µs a small record against ~2–3 for the shard whole,
 * and a snapshot rewrites every shard a write touched: most of what a POST /threads paid
 * beyond `d5486dc` in process. The records are frozen, so they stay as they were between turns.
 */
export async function shardBytes(data: ShardFile): Promise<Buffer> {
  const chunks: Buffer[] = [Buffer.from('{"records":{')];
  // the object's own order, as JSON.stringify walks it; a batch keeps it (its integer-like keys,
  // which an object puts first, come first in the whole object's order already)
  const entries = Object.entries(data.records);
  let size = FIRST_BATCH;
  for (let at = 0; at < entries.length;) {
    const end = Math.min(entries.length, at + size);
    // no prototype: an id such as "__proto__" is a key like any other
    const batch: Record<string, [number, object]> = Object.create(null);
    for (let i = at; i < end; i += 1) batch[entries[i]![0]] = entries[i]![1];
    const json = Buffer.from(JSON.stringify(batch));
    if (at > 0) chunks.push(Buffer.from(','));
    chunks.push(json.subarray(1, json.length - 1));
    size = Math.max(1, Math.min(2 * (end - at), Math.round(((end - at) * SHARD_TEXT_CHUNK) / json.length)));
    at = end;
    if (at < entries.length) await new Promise((resolve) => setImmediate(resolve));
  }
  chunks.push(Buffer.from('}}'));
  return Buffer.concat(chunks);
}

function readShardText(text: string, relative: string): ShardFile | Problem {
  const repair = 'moved aside; records only it held are lost (the journal still has any written since it)';
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { file: relative, what: `is not JSON (${(err as Error).message})`, repair };
  }
  const records = (data as Partial<ShardFile> | null)?.records;
  if (!isObject(records) || !Object.values(records).every((r) => Array.isArray(r) && r.length === 2 && typeof r[0] === 'number' && isObject(r[1]))) {
    return { file: relative, what: 'is not a snapshot shard (expected {"records":{"<id>":[seq, value]}})', repair };
  }
  return data as ShardFile;
}

export function readShard(dir: string, name: string, shard: number): ShardFile | Problem {
  const file = shardPath(dir, name, shard);
  const relative = path.relative(dir, file);
  try {
    return readShardText(fs.readFileSync(file, 'utf8'), relative);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return missingShard(relative);
    return { file: relative, what: `cannot be read (${(err as Error).message})`, repair: 'moved aside; records only it held are lost' };
  }
}

function missingShard(relative: string): Problem {
  return {
    file: relative,
    what: `is listed in ${META_FILE} but missing`,
    repair: `dropped from ${META_FILE}; the records it held are lost unless the journal still has them`,
  };
}

/** Everything in the directory, read; problems collected rather than thrown. */
export interface DataDirRead<S extends SegmentLines = SegmentRead> {
  meta: Meta | null;
  shardCount: number;
  /** Readable shards, per collection: shard number → contents. */
  shards: Map<string, Map<number, ShardFile>>;
  /** The shard numbers of the collections the caller reads itself (`readsItself`), unread. */
  unread: Map<string, number[]>;
  segments: S[];
  problems: Problem[];
}

/** What readDataDir names the problems of a journal file from. */
export type SegmentLines = Pick<SegmentRead, 'file' | 'bad' | 'torn'>;

/**
 * `readsItself`: collections whose shards the caller reads (a file at a time): listed, not read.
 * `readLines`: how each journal file is read (the store's start scans its lines: journalLines.ts).
 */
export function readDataDir<S extends SegmentLines = SegmentRead>(
  dir: string,
  defaultShards: number,
  readsItself: (name: string) => boolean = () => false,
  readLines: (segment: { number: number; file: string }) => S = readSegment as unknown as (segment: { number: number; file: string }) => S,
): DataDirRead<S> {
  const problems: Problem[] = [];
  const metaRead = readMeta(dir);
  const meta = isProblem(metaRead) ? null : metaRead;
  if (isProblem(metaRead)) problems.push(metaRead);
  const shardCount = meta?.shards ?? defaultShards;
  const onDisk = shardFilesOnDisk(dir);
  // what store.json lists must be there; files it does not list yet (a snapshot cut short before
  // store.json was written) are read too: the journal they came from is still there
  const wanted: Record<string, Set<number>> = {};
  for (const [name, list] of Object.entries(onDisk)) wanted[name] = new Set(list);
  for (const [name, list] of Object.entries(meta?.collections ?? {})) for (const n of list) (wanted[name] ??= new Set()).add(n);
  const shards = new Map<string, Map<number, ShardFile>>();
  const unread = new Map<string, number[]>();
  for (const [name, numbers] of Object.entries(wanted)) {
    if (readsItself(name)) {
      // the caller may open a shard only when first needed: one listed and not on disk is named now
      const present = new Set(onDisk[name]);
      const listed = [...numbers].sort((a, b) => a - b);
      for (const n of listed) if (!present.has(n)) problems.push(missingShard(path.relative(dir, shardPath(dir, name, n))));
      unread.set(
        name,
        listed.filter((n) => present.has(n)),
      );
      continue;
    }
    const loaded = new Map<number, ShardFile>();
    shards.set(name, loaded);
    for (const n of [...numbers].sort((a, b) => a - b)) {
      const read = readShard(dir, name, n);
      if (isProblem(read)) problems.push(read);
      else loaded.set(n, read);
    }
  }
  const all = segments(dir).map(readLines);
  all.forEach((segment, i) => {
    const relative = path.relative(dir, segment.file);
    for (const bad of segment.bad) {
      problems.push({
        file: relative,
        line: bad.line,
        what: `line ${bad.line} (${bad.bytes} bytes) is ${bad.why}`,
        repair: 'the line is dropped (kept in the moved-aside copy); every readable line is kept',
      });
    }
    // only the newest segment can end in a write cut short: older ones were complete when the next began
    if (segment.torn && i < all.length - 1) {
      problems.push({
        file: relative,
        line: segment.torn.line,
        what: `ends in an incomplete line ${segment.torn.line} (${segment.torn.bytes} bytes) although a newer journal file follows it`,
        repair: 'the incomplete line is dropped (kept in the moved-aside copy)',
      });
    }
  });
  // the store opens a journal file before it first writes store.json and keeps one from then on:
  // a used directory without one has lost every write since its last snapshot (all, if none was taken)
  if (all.length === 0 && (metaRead !== null || Object.keys(onDisk).length > 0)) problems.push(JOURNAL_MISSING);
  return { meta, shardCount, shards, unread, segments: all, problems };
}

export const JOURNAL_MISSING: Problem = {
  file: 'journal',
  what: `holds no journal file (00000001.log or later), yet ${META_FILE} or the snapshots show the directory was used: every write since the last snapshot, all of them if none was taken, is missing`,
  repair: 'an empty journal is started: the server then starts from the snapshots alone (deliberately initialising the directory)',
};

/** The refusal to start: what is wrong, where, and what a person does next. */
export function damaged(dir: string, problems: Problem[]): StoreDamagedError {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return new StoreDamagedError(
    `refusing to start: the data directory ${dir} is damaged: ${path.join(dir, first.file)} ${first.what}${more}. Nothing was changed. ` +
      `Run 'agentplane store check ${dir}' to list every problem, then, with the server stopped and a copy of the directory kept, ` +
      `'agentplane store repair ${dir}' to keep every readable record and move the damaged files aside. See docs/operations.md.`,
  );
}

export const asideName = (file: string, at: Date = new Date()) => `${file}.corrupt-${at.toISOString().replace(/[:.]/g, '-')}`;
