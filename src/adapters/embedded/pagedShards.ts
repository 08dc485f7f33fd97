// The snapshot shard of a paged collection (pagedCollections.ts): the same JSON document as any
// shard, {"records":{"<id>":[seq, value], …}}, laid out one record a line, so that where each
// value's bytes are can be found again on start without keeping the document in memory.
//
//   {"records":{
//   "<id>":[seq,<value>],
//   "<id>":[seq,<value>]
//   },"index":[…],"head":{…},"at":H}       its saved index, as a trailer (shardTrailer.ts)
//
// JSON.stringify writes no raw newline (one inside a string is escaped), so a line is a record.
// Shards written before the trailer end in `\n},"generation":"<32 hex digits>"}` (the generation
// named the text for its saved index in a file of its own, pagedIndex.ts), or in `\n}}`.
import fs from 'node:fs';
import type { Location } from './pagedValues.ts';
import { trailerEnd } from './shardTrailer.ts';

export const PAGED_SHARD_HEAD = Buffer.from('{"records":{\n');
const TAIL = Buffer.from('\n}}');
/** The end of a shard: with its generation, or without (written before there were saved indexes). */
const ENDING = /\n\}(?:,"generation":"([0-9a-f]{32})")?\}$/;
/** Bytes enough to hold the longest ending. */
const ENDING_BYTES = 64;
const CLOSE = Buffer.from(']');

/** A paged shard's text as it is made: the bytes not yet taken, and where each record's value is. */
export interface PagedShardText {
  chunks: Buffer[];
  /** Bytes in `chunks`. */
  pending: number;
  /** Bytes of the whole text so far. */
  bytes: number;
  /** Where each record's value sits in the text, in the order added. */
  placed: Omit<Location, 'file'>[];
}

export function startPagedShard(): PagedShardText {
  return { chunks: [PAGED_SHARD_HEAD], pending: PAGED_SHARD_HEAD.length, bytes: PAGED_SHARD_HEAD.length, placed: [] };
}

/** Adds one record whose value is `raw`, its JSON. */
export function addPagedRecord(text: PagedShardText, id: string, seq: number, raw: Buffer): void {
  const head = Buffer.from(`${text.placed.length ? ',\n' : ''}${JSON.stringify(id)}:[${seq},`);
  text.chunks.push(head, raw, CLOSE);
  text.placed.push({ at: text.bytes + head.length, len: raw.length });
  const added = head.length + raw.length + 1;
  text.bytes += added;
  text.pending += added;
}

/**
 * The text added since the last take, as the buffers to write one after the other: the shard is
 * written as it is made, never held whole, and its records' bytes are not copied into one buffer
 * first (a copy of every byte a snapshot writes, in fresh 128-KB buffers, issue 91).
 */
export function takePagedText(text: PagedShardText): Buffer[] {
  const taken = text.chunks;
  text.chunks = [];
  text.pending = 0;
  return taken;
}

/** The shard's last bytes, its trailer made by `trailerAt` for records that end at the byte given (counted in `text.bytes`). */
export function endPagedShard(text: PagedShardText, trailerAt: (end: number) => Buffer): Buffer {
  const end = trailerAt(text.bytes);
  text.bytes += end.length;
  return end;
}

/** The ending of a shard's text: its length and generation (null: none); null when it does not end as one. */
function endingOf(tail: Buffer): { bytes: number; generation: string | null } | null {
  const text = tail.toString('latin1');
  const match = ENDING.exec(text);
  return match ? { bytes: match[0].length, generation: match[1] ?? null } : null;
}

/** The generation a shard file of the layout before trailers ends with (read from its last bytes); null when it has none. */
export function generationOf(fd: number, size: number): string | null {
  const length = Math.min(size, ENDING_BYTES);
  const tail = Buffer.alloc(length);
  fs.readSync(fd, tail, 0, length, size - length);
  return endingOf(tail)?.generation ?? null;
}

export interface PagedRecord {
  id: string;
  seq: number;
  value: object;
  at: number;
  len: number;
}

/**
 * The records of a shard written as above, each with where its value is; null when the file is
 * not laid out so (a shard written before values were paged), and is to be read whole.
 */
export function pagedRecords(buffer: Buffer): PagedRecord[] | null {
  if (buffer.length < PAGED_SHARD_HEAD.length + TAIL.length) return null;
  if (!buffer.subarray(0, PAGED_SHARD_HEAD.length).equals(PAGED_SHARD_HEAD)) return null;
  const ending = endingOf(buffer.subarray(Math.max(PAGED_SHARD_HEAD.length, buffer.length - ENDING_BYTES)));
  const end = ending ? buffer.length - ending.bytes : trailerEnd(buffer);
  if (end === null || end < PAGED_SHARD_HEAD.length || buffer[end] !== 0x0a || buffer[end + 1] !== 0x7d) return null;
  const out: PagedRecord[] = [];
  for (let start = PAGED_SHARD_HEAD.length; start < end;) {
    let nl: number = buffer.indexOf(0x0a, start);
    if (nl < 0 || nl > end) nl = end;
    const last: boolean = nl === end;
    const stop = last ? nl : nl - 1; // the comma between two records
    if (!last && buffer[stop] !== 0x2c) return null;
    const record = parseLine(buffer, start, stop);
    if (!record) return null;
    out.push(record);
    start = nl + 1;
  }
  return out;
}

function parseLine(buffer: Buffer, start: number, stop: number): PagedRecord | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(`{${buffer.toString('utf8', start, stop)}}`);
  } catch {
    return null;
  }
  const entries = Object.entries(parsed as object);
  if (entries.length !== 1) return null;
  const [id, record] = entries[0]!;
  if (!Array.isArray(record) || record.length !== 2 || typeof record[0] !== 'number' || typeof record[1] !== 'object' || record[1] === null) return null;
  const at = start + Buffer.byteLength(`${JSON.stringify(id)}:[${record[0]},`);
  const len = stop - 1 - at;
  // the value's own bytes, from the comma after the seq to the closing bracket
  if (buffer[at - 1] !== 0x2c || buffer[stop - 1] !== 0x5d || len <= 0) return null;
  return { id, seq: record[0], value: record[1] as object, at, len };
}
