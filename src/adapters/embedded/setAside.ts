// A group of records (recordGroups.ts) changed since its shard was last written, let go of the
// heap (issue 91): its records' places are in the journal, not on a line of a saved index, so
// what memory would keep of them — each record's id, seq, file, place and kept fields — is kept
// as the text of one buffer, off the heap, until the group is used again or a snapshot writes it.
// Held, such a group cost ~380 bytes of heap a record for as long as the journal it was written
// in lived (up to 128 MB of journal: thousands of runs of the `agent` graph).
import { presentOf } from './indexRows.ts';
import type { Kept } from './collectionState.ts';

/** The records, in their order, as one buffer; null when one of them is not on disk (held whole: it stays held). */
export function setAside(records: Iterable<[string, Kept]>, fields: readonly string[]): Buffer | null {
  const rows: unknown[] = [];
  for (const [id, entry] of records) {
    if (!entry.file) return null;
    rows.push([id, entry.seq, entry.file, entry.at, entry.len, presentOf(fields, entry.keys ?? [])]);
  }
  return Buffer.from(JSON.stringify(rows));
}

/** The records set aside, in their order, each located where it was (its kept fields as read: the caller shares and freezes them). */
export function takeBack(aside: Buffer, fields: readonly string[]): [string, Kept][] {
  const rows = JSON.parse(aside.toString('utf8')) as [string, number, number, number, number, Record<string, unknown>][];
  return rows.map(([id, seq, file, at, len, kept]) => [
    id,
    { seq, value: undefined, slot: -1, file, at, len, keys: fields.map((field) => (Object.hasOwn(kept, field) ? kept[field] : undefined)) },
  ]);
}

/** The files the records set aside are in, one a record (each holds its file open: PagedFiles.ref). */
export function filesOf(aside: Buffer): number[] {
  return (JSON.parse(aside.toString('utf8')) as [string, number, number][]).map((row) => row[2]);
}
