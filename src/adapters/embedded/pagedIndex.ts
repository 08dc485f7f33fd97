// The saved index of a paged shard (issue 91): written beside the shard with each snapshot
// (collections/<name>/shard-N.index), it holds per record where its value is in the shard and
// the fields memory keeps of it (pagedCollections.ts), so that a start locates every record
// without reading the shard: a start then costs the number of records, not their bytes.
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

interface IndexFile {
  version: 1;
  generation: string;
  size: number;
  mtimeMs: number;
  fields: readonly string[];
  /** [id, seq, at, len, kept] each; `kept` holds the kept fields present (an absent one has no JSON). */
  records: [string, number, number, number, Record<string, unknown>][];
}

export const indexPath = (shardFile: string) => shardFile.replace(/\.json$/, '.index');

/** Writes the index of the shard just written at `shardFile` with `generation`. */
export async function writePagedIndex(shardFile: string, generation: string, fields: readonly string[], records: readonly IndexedRecord[]): Promise<void> {
  const stat = fs.statSync(shardFile);
  const index: IndexFile = {
    version: 1,
    generation,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    fields,
    records: records.map((r) => [r.id, r.seq, r.at, r.len, presentOf(fields, r.keys)]),
  };
  await writeFileAtomic(indexPath(shardFile), JSON.stringify(index), false);
}

/** The records of the shard at `shardFile` (open as `fd`) from its saved index; null when there is none that describes it now. */
export function readPagedIndex(shardFile: string, fd: number, fields: readonly string[]): IndexedRecord[] | null {
  let index: Partial<IndexFile>;
  try {
    index = JSON.parse(fs.readFileSync(indexPath(shardFile), 'utf8')) as Partial<IndexFile>;
  } catch {
    return null; // none, or cut short: the shard is read instead
  }
  const stat = fs.fstatSync(fd);
  if (index.version !== 1 || index.size !== stat.size || index.mtimeMs !== stat.mtimeMs) return null;
  if (JSON.stringify(index.fields) !== JSON.stringify(fields) || !Array.isArray(index.records)) return null;
  if (typeof index.generation !== 'string' || index.generation !== generationOf(fd, stat.size)) return null;
  const out: IndexedRecord[] = [];
  for (const record of index.records) {
    if (!Array.isArray(record) || record.length !== 5) return null;
    const [id, seq, at, len, kept] = record;
    if (typeof id !== 'string' || typeof seq !== 'number' || typeof at !== 'number' || typeof len !== 'number') return null;
    if (kept === null || typeof kept !== 'object' || at < 0 || len <= 0 || at + len > stat.size) return null;
    out.push({ id, seq, at, len, keys: fields.map((field) => (Object.hasOwn(kept, field) ? kept[field] : undefined)) });
  }
  return out;
}

function presentOf(fields: readonly string[], keys: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    if (keys[i] !== undefined) out[field] = keys[i];
  });
  return out;
}
