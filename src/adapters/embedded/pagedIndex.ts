// The saved index of a paged shard (issue 91) in the layout before the trailer (shardTrailer.ts),
// a file beside the shard (collections/<name>/shard-N.index): no snapshot writes one any more; a
// directory written before keeps it until its shard is written again, and a start reads it. It
// holds per record where its value is in the shard and the fields memory keeps of it
// (pagedCollections.ts), so that a start locates every record without reading the shard.
//
//   {"version":2,"generation":"…","size":N,"mtimeMs":M,"fields":[…],"seq":S,"few":{…},"holding":[…]}   the head, one line
//   [[id, seq, at, len, {kept fields present}], …]                                                    the records
//
// The head alone says whether the index describes the shard, so a start checks it (a few hundred
// bytes a shard) and reads the records after it, in the background (journalStore.ts); `seq` is
// the highest of its records', so new records are numbered after them meanwhile; `holding` lists
// (as the records are) those whose kept fields hold one of the values `few` names
// (pagedCollections.ts FEW_VALUES), so a look-up of one needs no more than the head.
//
// It is a cache, never the truth: it is used only while it describes the shard as it is now
// (the same generation at the shard's end, the same size and modification time, the same kept
// fields); otherwise, or when it is missing or unreadable, the shard is read as before.
import fs from 'node:fs';
import { generationOf } from './pagedShards.ts';
import { holdsFew, recordsOf, type FewValues, type IndexedRecord } from './indexRows.ts';

interface IndexHead {
  version: 2;
  generation: string;
  size: number;
  mtimeMs: number;
  fields: readonly string[];
  /** The highest seq of its records (0: none). */
  seq: number;
  /** Per kept field, the values few records hold; `holding` lists the records holding one. */
  few: Readonly<Record<string, readonly string[]>>;
  holding: unknown[];
}

/** An index whose head describes its shard: its records are read later (readIndexedRecords). */
export interface DescribingIndex {
  file: string;
  /** The shard's size, which every record's place lies within. */
  size: number;
  seq: number;
  /** The records holding one of the few values (FEW_VALUES). */
  holding: IndexedRecord[];
}

/** How much of an index is read at a time until its head's end; a head longer than HEAD_LIMIT is not one of ours. */
const HEAD_CHUNK = 16 * 1024;
const HEAD_LIMIT = 16 * 1024 * 1024;

export const indexPath = (shardFile: string) => shardFile.replace(/\.json$/, '.index');

/**
 * The saved index of the shard at `shardFile` (open as `fd`) when its head describes the shard as
 * it is now, reading the head alone; null otherwise (none, another shard's, an older layout, cut short).
 */
export function describingIndex(shardFile: string, fd: number, fields: readonly string[], few: FewValues = {}): DescribingIndex | null {
  const file = indexPath(shardFile);
  let head: Partial<IndexHead>;
  try {
    head = JSON.parse(readHead(file)) as Partial<IndexHead>;
  } catch {
    return null; // none, or not ours: the shard is read instead
  }
  const stat = fs.fstatSync(fd);
  if (head === null || typeof head !== 'object' || head.version !== 2 || head.size !== stat.size || head.mtimeMs !== stat.mtimeMs) return null;
  if (JSON.stringify(head.fields) !== JSON.stringify(fields) || JSON.stringify(head.few) !== JSON.stringify(few) || typeof head.seq !== 'number') return null;
  if (typeof head.generation !== 'string' || head.generation !== generationOf(fd, stat.size)) return null;
  const holding = recordsOf(head.holding, fields, stat.size, head.seq);
  const holds = holdsFew(fields, few);
  if (!holding || !holding.every((r) => holds(r.keys))) return null;
  return { file, size: stat.size, seq: head.seq, holding };
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
  return recordsOf(records, fields, index.size, index.seq);
}

/** An index's first line, its head (read a chunk at a time, up to HEAD_LIMIT). */
export function readHead(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    for (let at = 0; at < HEAD_LIMIT;) {
      const chunk = Buffer.allocUnsafe(HEAD_CHUNK);
      const n = fs.readSync(fd, chunk, 0, HEAD_CHUNK, at);
      if (n <= 0) break;
      const nl = chunk.subarray(0, n).indexOf(0x0a);
      chunks.push(chunk.subarray(0, nl < 0 ? n : nl));
      if (nl >= 0) return Buffer.concat(chunks).toString('utf8');
      at += n;
    }
    throw new Error('no head');
  } finally {
    fs.closeSync(fd);
  }
}
