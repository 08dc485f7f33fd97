// The saved index of a grouped collection's shard (issue 91; recordGroups.ts): like a paged
// shard's (pagedIndex.ts), it holds per record where its value is in the shard and the fields
// memory keeps of it, but one line per group of records (a thread's), and its head says where
// each group's line is, so that memory keeps per group only that place and reads the group's
// records when it is used.
//
//   {"version":3,"generation":"…","size":N,"mtimeMs":M,"fields":[…],"seq":S,"groups":[[key, at, len, count], …]}
//   [[id, seq, at, len, {kept fields present}], …]      one line per group; `at`: bytes after the head's line
//
// It was written beside the shard in one of two files, a and b, in turns (the one the groups in
// memory were read from was never written while they were). No snapshot writes it any more: the
// index is the shard file's trailer now (shardTrailer.ts); a directory written before keeps its
// files until each shard is written again, and a start uses the one that describes the shard as
// it is now (the same generation, size, modification time and kept fields), or reads the shard.
// It is a cache, never the truth: a group whose line cannot be read is found in its shard.
import fs from 'node:fs';
import { generationOf } from './pagedShards.ts';
import { readHead } from './pagedIndex.ts';
import { recordsOf, type IndexedRecord } from './indexRows.ts';
import { readExactly } from './readExactly.ts';

/** Which of a shard's two index files; IN_SHARD: neither, the shard's own trailer (shardTrailer.ts). */
export type Side = 0 | 1 | typeof IN_SHARD;
export const IN_SHARD = 2;

export const groupedIndexPath = (shardFile: string, side: 0 | 1) => shardFile.replace(/\.json$/, side === 0 ? '.a.index' : '.b.index');

/** A group's line in an index file: bytes from the file's start, and how many records it lists. */
export interface GroupLine {
  key: string;
  at: number;
  len: number;
  count: number;
}

interface GroupedHead {
  version: 3;
  generation: string;
  size: number;
  mtimeMs: number;
  fields: readonly string[];
  seq: number;
  groups: [string, number, number, number][];
}

/** The index of the shard at `shardFile` (open as `fd`) that describes it as it is now, reading the heads alone; null when neither does. */
export function describingGroupedIndex(
  shardFile: string,
  fd: number,
  fields: readonly string[],
): { side: Side; seq: number; size: number; groups: GroupLine[] } | null {
  const stat = fs.fstatSync(fd);
  for (const side of [0, 1] as const) {
    let head: Partial<GroupedHead>;
    let headText: string;
    try {
      headText = readHead(groupedIndexPath(shardFile, side));
      head = JSON.parse(headText) as Partial<GroupedHead>;
    } catch {
      continue; // none, or not ours
    }
    if (head === null || typeof head !== 'object' || head.version !== 3 || head.size !== stat.size || head.mtimeMs !== stat.mtimeMs) continue;
    if (JSON.stringify(head.fields) !== JSON.stringify(fields) || typeof head.seq !== 'number' || !Array.isArray(head.groups)) continue;
    if (typeof head.generation !== 'string' || head.generation !== generationOf(fd, stat.size)) continue;
    const body = Buffer.byteLength(headText) + 1;
    const groups: GroupLine[] = [];
    for (const g of head.groups as unknown[]) {
      if (!Array.isArray(g) || g.length !== 4 || typeof g[0] !== 'string' || !g.slice(1).every((n) => Number.isInteger(n) && (n as number) >= 0)) return null;
      groups.push({ key: g[0], at: body + (g[1] as number), len: g[2] as number, count: g[3] as number });
    }
    return { side, seq: head.seq, size: stat.size, groups };
  }
  return null;
}

/** The records of a group's line, read from the index file on `side`; null when it cannot be read as one (the group is found in its shard instead). */
export function readGroupLine(shardFile: string, side: 0 | 1, line: { at: number; len: number }, fields: readonly string[]): IndexedRecord[] | null {
  try {
    const fd = fs.openSync(groupedIndexPath(shardFile, side), 'r');
    try {
      const buffer = readExactly(fd, line.at, line.len);
      if (!buffer) return null;
      return recordsOf(JSON.parse(buffer.toString('utf8')), fields, Infinity, Infinity);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}
