// A paged shard's saved index as the shard file's own trailer (issue 91): per record where its
// value is and the fields memory keeps of it, so that a start locates every record without
// reading the values. It was a second file beside each shard (pagedIndex.ts, groupedIndex.ts:
// still read where a directory has them): two new inodes a shard a snapshot, and writing the
// indexes was 25-35% of a snapshot's CPU. Now the shard and its index are one file, written
// whole under a temporary name and renamed (writeFileAtomic), so the index always describes the
// records before it: no generation, size or time to check, and nothing to cut short.
//
//   {"records":{
//   "<id>":[seq,<value>],                            the records, one a line (pagedShards.ts)
//   "<id>":[seq,<value>]
//   },"index":[                                      `end`: where the "\n}" closing the records is
//   <line>,                                          a paged collection's: one line, every record's row;
//   <line>                                           a grouped one's: one line a group
//   ],"head":{"version":4,"end":E,"fields":[…],"seq":S,…},"at":H}     H: where the head begins
//
// A row is [id, seq, at, len, {kept fields present}], as the separate indexes had it. The whole
// is one JSON document (readShard still reads it), and a start reads the last bytes for `at`,
// then the head alone; a paged head lists its line ("rows": [at, len]) and the records holding
// one of the few values ("few", "holding"); a grouped head lists each group's line
// ("groups": [[key, at, len, count], …]), read when the group is used.
import fs from 'node:fs';
import { holdsFew, presentOf, recordsOf, type FewValues, type IndexedRecord } from './indexRows.ts';
import { readExactly } from './readExactly.ts';

interface TrailerHead {
  version: 4;
  /** Where the records end: the "\n}" that closes them. */
  end: number;
  fields: readonly string[];
  /** The highest seq of its records (0: none). */
  seq: number;
  /** A paged collection's: its rows' line, the few values and the rows holding one. */
  rows?: [number, number];
  few?: FewValues;
  holding?: unknown[];
  /** A grouped collection's: each group's line. */
  groups?: [string, number, number, number][];
}

/** The last bytes: where the head begins. */
const ENDING = /,"at":(\d{1,15})\}$/;
const ENDING_BYTES = 32;

const rowOf = (fields: readonly string[], r: IndexedRecord) => [r.id, r.seq, r.at, r.len, presentOf(fields, r.keys)];

/**
 * The text after a shard's records whose closing "\n}" would begin at byte `end`: the lines, each
 * placed where it lands, then the head made by `headOf` from those places.
 */
function trailer(end: number, lines: string[], headOf: (placed: [number, number][]) => Omit<TrailerHead, 'version' | 'end'>): Buffer {
  const parts: Buffer[] = [];
  let at = end;
  const push = (text: string) => {
    const bytes = Buffer.from(text);
    parts.push(bytes);
    at += bytes.length;
    return bytes.length;
  };
  push('\n},"index":[\n');
  const placed: [number, number][] = [];
  lines.forEach((line, i) => {
    if (i) push(',\n');
    const from = at;
    placed.push([from, push(line)]);
  });
  push('\n],"head":');
  const headAt = at;
  const head: TrailerHead = { version: 4, end, ...headOf(placed) };
  push(`${JSON.stringify(head)},"at":${headAt}}`);
  return Buffer.concat(parts, at - end);
}

const highest = (rows: readonly IndexedRecord[]) => rows.reduce((seq, r) => Math.max(seq, r.seq), 0);

/** A paged collection's shard's trailer, its records' closing "\n}" at `end`. */
export function pagedTrailer(end: number, fields: readonly string[], rows: readonly IndexedRecord[], few: FewValues = {}): Buffer {
  const holds = holdsFew(fields, few);
  return trailer(end, [JSON.stringify(rows.map((r) => rowOf(fields, r)))], ([line]) => ({
    fields,
    seq: highest(rows),
    rows: line!,
    few,
    holding: rows.filter((r) => holds(r.keys)).map((r) => rowOf(fields, r)),
  }));
}

/** A group's line in its shard file: where, and how many records it lists. */
export interface TrailerLine {
  key: string;
  at: number;
  len: number;
  count: number;
}

/** A grouped collection's shard's trailer, one line a group; and where each group's line is. */
export function groupedTrailer(
  end: number,
  fields: readonly string[],
  groups: readonly { key: string; rows: readonly IndexedRecord[] }[],
): { text: Buffer; lines: TrailerLine[] } {
  const lines: TrailerLine[] = [];
  const text = trailer(
    end,
    groups.map((g) => JSON.stringify(g.rows.map((r) => rowOf(fields, r)))),
    (placed) => {
      placed.forEach(([at, len], i) => lines.push({ key: groups[i]!.key, at, len, count: groups[i]!.rows.length }));
      return { fields, seq: groups.reduce((seq, g) => Math.max(seq, highest(g.rows)), 0), groups: lines.map((l) => [l.key, l.at, l.len, l.count]) };
    },
  );
  return { text, lines };
}

/** A shard file's bytes as the trailer is read from them: an open file's, or a buffer's (a test's cut at every point). */
export interface ShardBytes {
  size: number;
  read(at: number, len: number): Buffer;
}

export function fileBytes(fd: number): ShardBytes {
  return { size: fs.fstatSync(fd).size, read: (at, len) => readAt(fd, at, len) };
}

export function bufferBytes(buffer: Buffer): ShardBytes {
  return { size: buffer.length, read: (at, len) => buffer.subarray(at, at + len) };
}

function readAt(fd: number, at: number, len: number): Buffer {
  const buffer = readExactly(fd, at, len);
  if (!buffer) throw new Error('ends early');
  return buffer;
}

const isPlace = (n: unknown, size: number) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= size;

/** A trailer's head from the shard's bytes; null when it has none that reads. */
function headOf({ size, read }: ShardBytes): TrailerHead | null {
  try {
    const tailLength = Math.min(size, ENDING_BYTES);
    const match = ENDING.exec(read(size - tailLength, tailLength).toString('latin1'));
    if (!match) return null;
    const at = Number(match[1]);
    const len = size - match[0].length - at;
    if (at < 0 || len <= 0) return null;
    const head = JSON.parse(read(at, len).toString('utf8')) as Partial<TrailerHead> | null;
    if (head === null || typeof head !== 'object' || head.version !== 4 || !isPlace(head.end, at) || typeof head.seq !== 'number') return null;
    if (!Array.isArray(head.fields)) return null;
    return head as TrailerHead;
  } catch {
    return null;
  }
}

/** Where a shard's records end by its trailer ("\n}" at that byte); null when it has no trailer. */
export function trailerEnd(buffer: Buffer): number | null {
  return headOf(bufferBytes(buffer))?.end ?? null;
}

const sameFields = (a: readonly string[], b: readonly string[]) => JSON.stringify(a) === JSON.stringify(b);

/** A paged shard's index as its trailer's head tells it: the rows' line is read later (readTrailerRows). */
export interface TrailerIndex {
  /** The shard file's size. */
  size: number;
  /** Where its records end (every value lies before). */
  end: number;
  seq: number;
  rows: [number, number];
  /** The records holding one of the few values. */
  holding: IndexedRecord[];
}

/** A paged shard's index from its trailer, its head alone read; null when it has none that describes it for `fields`. */
export function pagedTrailerOf(bytes: ShardBytes, fields: readonly string[], few: FewValues = {}): TrailerIndex | null {
  const size = bytes.size;
  const head = headOf(bytes);
  if (!head || !sameFields(head.fields, fields) || JSON.stringify(head.few) !== JSON.stringify(few)) return null;
  const rows = head.rows;
  if (!Array.isArray(rows) || rows.length !== 2 || !isPlace(rows[0], size) || !isPlace(rows[0] + rows[1], size)) return null;
  const holding = recordsOf(head.holding, fields, head.end, head.seq);
  const holds = holdsFew(fields, few);
  if (!holding || !holding.every((r) => holds(r.keys))) return null;
  return { size, end: head.end, seq: head.seq, rows, holding };
}

/** A paged shard's rows, read from its trailer's line; null when they are not readable as rows (the shard is read instead). */
export function readTrailerRows(fd: number, rows: readonly [number, number], fields: readonly string[], end: number, seq: number): IndexedRecord[] | null {
  try {
    return recordsOf(JSON.parse(readAt(fd, rows[0], rows[1]).toString('utf8')), fields, end, seq);
  } catch {
    return null;
  }
}

/** A grouped shard's groups from its trailer's head; null when it has none that describes it for `fields`. */
export function groupedTrailerOf(bytes: ShardBytes, fields: readonly string[]): { size: number; seq: number; groups: TrailerLine[] } | null {
  const size = bytes.size;
  const head = headOf(bytes);
  if (!head || !sameFields(head.fields, fields) || !Array.isArray(head.groups)) return null;
  const groups: TrailerLine[] = [];
  for (const g of head.groups as unknown[]) {
    if (!Array.isArray(g) || g.length !== 4 || typeof g[0] !== 'string' || !g.slice(1).every((n) => isPlace(n, size))) return null;
    groups.push({ key: g[0], at: g[1] as number, len: g[2] as number, count: g[3] as number });
  }
  return { size, seq: head.seq, groups };
}

/** The records of a group's line in its shard file; null when it cannot be read as one (the group is found among the shard's records instead). */
export function readTrailerLine(fd: number, line: { at: number; len: number }, fields: readonly string[]): IndexedRecord[] | null {
  try {
    return recordsOf(JSON.parse(readAt(fd, line.at, line.len).toString('utf8')), fields, Infinity, Infinity);
  } catch {
    return null;
  }
}
