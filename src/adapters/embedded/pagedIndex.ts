// The saved index of a paged shard (issue 91): written beside the shard with each snapshot
// (collections/<name>/shard-N.index), it holds per record where its value is in the shard and
// the fields memory keeps of it (pagedCollections.ts), so that a start locates every record
// without reading the shard: a start then costs the number of records, not their bytes.
//
//   {"version":2,"generation":"…","size":N,"mtimeMs":M,"fields":[…],"seq":S}   the head, one line
//   [[id, seq, at, len, {kept fields present}], …]                              the records
//
// The head alone says whether the index describes the shard, so a start checks it (a few hundred
// bytes a shard) and reads the records after it, in the background (journalStore.ts); `seq` is
// the highest of its records', so new records are numbered after them meanwhile.
//
// It is a cache, never the truth: it is used only while it describes the shard as it is now
// (the same generation at the shard's end, the same size and modification time, the same kept
// fields); otherwise, or when it is missing or unreadable, the shard is read as before. So it is
// written without fsync, and a failure to write it only costs the next start that reading.
import fs from 'node:fs';
import { writeFileAtomic } from './dataDir.ts';
import { generationOf } from './pagedShards.ts';

export interface IndexedRecord {
  id: string;
  seq: number;
  at: number;
  len: number;
  /** The kept fields' values, in the order of the collection's kept fields. */
  keys: unknown[];
}

interface IndexHead {
  version: 2;
  generation: string;
  size: number;
  mtimeMs: number;
  fields: readonly string[];
  /** The highest seq of its records (0: none). */
  seq: number;
}

/** An index whose head describes its shard: its records are read later (readIndexedRecords). */
export interface DescribingIndex {
  file: string;
  /** The shard's size, which every record's place lies within. */
  size: number;
  seq: number;
}

/** Bytes enough for any head: a longer first line is not one of ours. */
const HEAD_BYTES = 64 * 1024;

export const indexPath = (shardFile: string) => shardFile.replace(/\.json$/, '.index');

/** Writes the index of the shard just written at `shardFile` with `generation`. */
export async function writePagedIndex(shardFile: string, generation: string, fields: readonly string[], records: readonly IndexedRecord[]): Promise<void> {
  const stat = fs.statSync(shardFile);
  let seq = 0;
  for (const r of records) seq = Math.max(seq, r.seq);
  const head: IndexHead = { version: 2, generation, size: stat.size, mtimeMs: stat.mtimeMs, fields, seq };
  const body = JSON.stringify(records.map((r) => [r.id, r.seq, r.at, r.len, presentOf(fields, r.keys)]));
  await writeFileAtomic(indexPath(shardFile), `${JSON.stringify(head)}\n${body}`, false);
}

/**
 * The saved index of the shard at `shardFile` (open as `fd`) when its head describes the shard as
 * it is now, reading the head alone; null otherwise (none, another shard's, an older layout, cut short).
 */
export function describingIndex(shardFile: string, fd: number, fields: readonly string[]): DescribingIndex | null {
  const file = indexPath(shardFile);
  let head: Partial<IndexHead>;
  try {
    const bytes = readStart(file);
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) return null;
    head = JSON.parse(bytes.toString('utf8', 0, nl)) as Partial<IndexHead>;
  } catch {
    return null; // none, or not ours: the shard is read instead
  }
  const stat = fs.fstatSync(fd);
  if (head === null || typeof head !== 'object' || head.version !== 2 || head.size !== stat.size || head.mtimeMs !== stat.mtimeMs) return null;
  if (JSON.stringify(head.fields) !== JSON.stringify(fields) || typeof head.seq !== 'number') return null;
  if (typeof head.generation !== 'string' || head.generation !== generationOf(fd, stat.size)) return null;
  return { file, size: stat.size, seq: head.seq };
}

/** The records of an index its head said describes its shard; null when they are not readable as records (the shard is read instead). */
export function readIndexedRecords(index: DescribingIndex, fields: readonly string[]): IndexedRecord[] | null {
  let records: unknown;
  try {
    const text = fs.readFileSync(index.file, 'utf8');
    records = JSON.parse(text.slice(text.indexOf('\n') + 1));
  } catch {
    return null;
  }
  if (!Array.isArray(records)) return null;
  const out: IndexedRecord[] = [];
  for (const record of records as unknown[]) {
    if (!Array.isArray(record) || record.length !== 5) return null;
    const [id, seq, at, len, kept] = record as [unknown, unknown, unknown, unknown, Record<string, unknown> | null];
    if (typeof id !== 'string' || typeof seq !== 'number' || typeof at !== 'number' || typeof len !== 'number') return null;
    if (kept === null || typeof kept !== 'object' || at < 0 || len <= 0 || at + len > index.size || seq > index.seq) return null;
    out.push({ id, seq, at, len, keys: fields.map((field) => (Object.hasOwn(kept, field) ? kept[field] : undefined)) });
  }
  return out;
}

/** The first bytes of a file, up to HEAD_BYTES. */
function readStart(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    let done = 0;
    for (let n = 1; n > 0 && done < HEAD_BYTES && buffer.indexOf(0x0a) < 0; done += n) n = fs.readSync(fd, buffer, done, HEAD_BYTES - done, done);
    return buffer.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
}

function presentOf(fields: readonly string[], keys: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    if (keys[i] !== undefined) out[field] = keys[i];
  });
  return out;
}
