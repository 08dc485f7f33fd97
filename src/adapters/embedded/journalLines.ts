// A journal file read for a start (issue 91): each line split into its ops' heads (collection,
// id, seq) and where each put's value is in the file, the values of the paged collections left
// unparsed. A stop that left its journal (journalStore.ts closeRewriteBytes) has the next start
// replay it: 200 runs of the `agent` graph are ~9 MB of checkpoints, runs and threads, and
// parsing every value, then writing it again to find where it was, was ~0.5 s of CPU before the
// port listened; the paged values are parsed in their collection's load after serving instead.
// A line is checked for its shape here (brackets, strings, heads); a line that does not scan as
// JSON.stringify writes one is parsed whole as before (a bad one is named then); a paged value
// that scans but does not parse fails its collection's load (`agentplane store check` names it).
import fs from 'node:fs';
import { parseBatch, writeFileAtomicSync, type SegmentLines } from './dataDir.ts';
import { readExactly } from './readExactly.ts';

/** One op of a journal line: a put has its seq, and its value's bytes in the file (parsed already, `value`, for the collections read whole). */
export interface ScannedOp {
  collection: string;
  id: string;
  seq?: number;
  at: number;
  len: number;
  value?: object;
}

/** A journal file's ops, line by line, and the lines that did not read (what a start needs; the store tool's repair reads the file by readSegment). */
export interface ScannedSegment extends SegmentLines {
  number: number;
  lines: ScannedOp[][];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

/** The index just past the string that opens at `at` (a quote), or -1. */
function stringEnd(buf: Buffer, at: number, end: number): number {
  let from = at + 1;
  for (;;) {
    const quote = buf.indexOf(QUOTE, from);
    if (quote < 0 || quote >= end) return -1;
    let slashes = 0;
    while (buf[quote - 1 - slashes] === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * The index just past the object or array that opens at `at`, its strings skipped whole, or -1.
 * One loop over the bytes: a call of indexOf per string (most are a key of a few bytes) cost more
 * than the bytes it skipped.
 */
function valueEnd(buf: Uint8Array, at: number, end: number): number {
  let depth = 0;
  let inString = false;
  for (let i = at; i < end; i += 1) {
    const b = buf[i]!;
    if (inString) {
      if (b === BACKSLASH) i += 1;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_CURLY || b === OPEN_SQUARE) depth += 1;
    else if (b === CLOSE_CURLY || b === CLOSE_SQUARE) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** A string's text at [at, to) as JSON reads it, or undefined. */
function stringAt(buf: Buffer, at: number, to: number): string | undefined {
  try {
    const text: unknown = JSON.parse(buf.toString('utf8', at, to));
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

const COLON = 0x3a;

/**
 * A top-level field of the JSON object `buf` begins with, as JSON.stringify writes one (no
 * blanks), read without parsing the rest: `{ value }` when found, null when the object ends
 * without it, undefined when that cannot be told from these bytes (a prefix of the object that
 * ends first, or not an object of that shape: the caller parses the whole value instead). Run
 * recovery asks each run the journal kept for its status (fewBefore): 200 runs of ~14 KB were
 * ~65 ms of a restart's main thread decoded and parsed whole, twice (issue 91).
 */
export function topLevelField(buf: Buffer, field: string): { value: unknown } | null | undefined {
  if (buf[0] !== OPEN_CURLY) return undefined;
  const key = Buffer.from(JSON.stringify(field));
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  const end = buf.length;
  let at = 1;
  if (buf[at] === CLOSE_CURLY) return null;
  for (;;) {
    if (buf[at] !== QUOTE) return undefined;
    const keyEnd = stringEnd(buf, at, end);
    if (keyEnd < 0 || buf[keyEnd] !== COLON) return undefined;
    const from = keyEnd + 1;
    const first = buf[from];
    let to: number;
    if (first === QUOTE) to = stringEnd(buf, from, end);
    else if (first === OPEN_CURLY || first === OPEN_SQUARE) to = valueEnd(bytes, from, end);
    else {
      // a number, true, false or null: up to the comma or brace after it
      to = from;
      while (to < end && buf[to] !== COMMA && buf[to] !== CLOSE_CURLY) to += 1;
      if (to >= end) to = -1;
    }
    if (to < 0 || to >= end) return undefined;
    if (keyEnd - at === key.length && buf.compare(key, 0, key.length, at, keyEnd) === 0) {
      try {
        return { value: JSON.parse(buf.toString('utf8', from, to)) as unknown };
      } catch {
        return undefined;
      }
    }
    if (buf[to] === CLOSE_CURLY) return null;
    if (buf[to] !== COMMA) return undefined;
    at = to + 1;
  }
}

/**
 * The ops of the line at [start, end) of `buf` as JSON.stringify writes a batch, each value
 * located (and parsed when `whole` says so); null when the line is not of that shape or a value
 * read whole does not parse (the caller parses the line instead).
 */
export function scanLine(buf: Buffer, start: number, end: number, whole: (collection: string) => boolean): ScannedOp[] | null {
  if (buf[start] !== OPEN_SQUARE) return null;
  // a plain Uint8Array: its indexing in the loop over every byte (valueEnd) is monomorphic
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  const ops: ScannedOp[] = [];
  let i = start + 1;
  for (;;) {
    if (buf[i] !== OPEN_SQUARE || buf[i + 1] !== QUOTE) return null;
    const nameEnd = stringEnd(buf, i + 1, end);
    if (nameEnd < 0 || buf[nameEnd] !== COMMA || buf[nameEnd + 1] !== QUOTE) return null;
    const idEnd = stringEnd(buf, nameEnd + 1, end);
    const collection = stringAt(buf, i + 1, nameEnd);
    const id = idEnd < 0 ? undefined : stringAt(buf, nameEnd + 1, idEnd);
    if (collection === undefined || id === undefined) return null;
    if (buf[idEnd] === CLOSE_SQUARE) {
      ops.push({ collection, id, at: 0, len: 0 });
      i = idEnd + 1;
    } else {
      if (buf[idEnd] !== COMMA) return null;
      const seqEnd = buf.indexOf(COMMA, idEnd + 1);
      if (seqEnd < 0 || seqEnd >= end) return null;
      const seq = Number(buf.toString('latin1', idEnd + 1, seqEnd));
      const at = seqEnd + 1;
      if (!Number.isFinite(seq) || seqEnd === idEnd + 1 || (buf[at] !== OPEN_CURLY && buf[at] !== OPEN_SQUARE)) return null;
      const to = valueEnd(bytes, at, end);
      if (to < 0 || buf[to] !== CLOSE_SQUARE) return null;
      const op: ScannedOp = { collection, id, seq, at, len: to - at };
      if (whole(collection)) {
        try {
          op.value = JSON.parse(buf.toString('utf8', at, to)) as object;
        } catch {
          return null;
        }
      }
      ops.push(op);
      i = to + 1;
    }
    if (buf[i] === CLOSE_SQUARE && i + 1 === end) return ops;
    if (buf[i] !== COMMA) return null;
    i += 1;
  }
}

/** The bytes a start reads a journal file by, into one buffer (grown for a longer line): not a buffer of the file's size, whose fresh pages cost more than its read (~14 us a page here). */
const CHUNK = 1 << 20;

/**
 * A journal file's lines for a start: scanned (scanLine), or parsed whole when they do not scan
 * (their values then given, not located); the bad lines and a torn last one as readSegment names
 * them. Each op's `at` is its value's offset in the file.
 */
export function scanSegment(segment: { number: number; file: string }, whole: (collection: string) => boolean, chunk = CHUNK): ScannedSegment {
  const read: ScannedSegment = { ...segment, lines: [], bad: [] };
  const fd = fs.openSync(segment.file, 'r');
  try {
    let buf = Buffer.allocUnsafe(chunk);
    // the buffer holds the file's bytes from `base` on, `filled` of them; `start`: the next line's first byte in it
    let base = 0;
    let filled = 0;
    let start = 0;
    let line = 1;
    for (;;) {
      if (start > 0) {
        buf.copy(buf, 0, start, filled);
        base += start;
        filled -= start;
        start = 0;
      }
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = fs.readSync(fd, buf, filled, buf.length - filled, base + filled);
      if (n === 0) break;
      filled += n;
      const bytes = buf.subarray(0, filled);
      for (;;) {
        const nl = bytes.indexOf(0x0a, start);
        if (nl < 0) break;
        if (nl > start) {
          const scanned = scanLine(buf, start, nl, whole);
          const batch = scanned ?? parseBatch(buf.toString('utf8', start, nl));
          if (typeof batch === 'string') read.bad.push({ line, bytes: nl - start, why: batch });
          else {
            if (scanned) for (const op of scanned) op.at += base;
            read.lines.push(
              scanned ??
                (batch as ([string, string, number, object] | [string, string])[]).map((op) =>
                  op.length === 4 ? { collection: op[0], id: op[1], seq: op[2], at: 0, len: 0, value: op[3] } : { collection: op[0], id: op[1], at: 0, len: 0 },
                ),
            );
          }
        }
        start = nl + 1;
        line += 1;
      }
    }
    // a last line without its newline: a write cut short
    if (filled > start) read.torn = { line, offset: base + start, bytes: filled - start };
  } finally {
    fs.closeSync(fd);
  }
  return read;
}

/** The file beside a journal file that lists its ops (writeLineIndex). */
export const lineIndexOf = (journalFile: string) => journalFile.replace(/\.log$/, '.ops');

interface LineIndex {
  version: 1;
  size: number;
  mtimeMs: number;
  /** Per line, its ops: a put as [collection, id, seq, at, len], a delete as [collection, id]. */
  lines: ([string, string, number, number, number] | [string, string])[][];
}

/**
 * Written by a stop that leaves its journal (journalStore.ts keepJournal): each journal file's
 * ops as a start scans them, so that the next start reads this list rather than the file's bytes
 * (the scan of 200 runs' 8.9 MB was ~100 ms of a cold start's CPU). A journal file is never
 * written again once its writer stopped (each start begins a new one); a file whose size or
 * mtime differs from the list's, or a list that does not read, is scanned instead. None is
 * written for a file with a line that does not scan.
 */
export function writeLineIndex(segment: { number: number; file: string }): void {
  const scanned = scanSegment(segment, () => false);
  if (scanned.bad.length || scanned.torn) return;
  const lines: LineIndex['lines'] = [];
  for (const line of scanned.lines) {
    if (line.some((op) => op.value !== undefined)) return;
    lines.push(line.map((op) => (op.seq === undefined ? [op.collection, op.id] : [op.collection, op.id, op.seq, op.at, op.len])));
  }
  const stat = fs.statSync(segment.file);
  const index: LineIndex = { version: 1, size: stat.size, mtimeMs: stat.mtimeMs, lines };
  writeFileAtomicSync(lineIndexOf(segment.file), JSON.stringify(index));
}

/** A journal file's ops from its line index (writeLineIndex) when that describes it, the values of the collections read whole read from the file; null otherwise. */
export function readLineIndex(segment: { number: number; file: string }, whole: (collection: string) => boolean): ScannedSegment | null {
  let index: LineIndex;
  try {
    index = JSON.parse(fs.readFileSync(lineIndexOf(segment.file), 'utf8')) as LineIndex;
    const stat = fs.statSync(segment.file);
    if (index.version !== 1 || index.size !== stat.size || index.mtimeMs !== stat.mtimeMs || !Array.isArray(index.lines)) return null;
  } catch {
    return null;
  }
  const read: ScannedSegment = { ...segment, lines: [], bad: [] };
  let fd: number | null = null;
  try {
    for (const line of index.lines) {
      const ops: ScannedOp[] = [];
      for (const op of line) {
        if (op.length === 2) {
          ops.push({ collection: op[0], id: op[1], at: 0, len: 0 });
          continue;
        }
        const [collection, id, seq, at, len] = op;
        const scanned: ScannedOp = { collection, id, seq, at, len };
        if (whole(collection)) {
          fd ??= fs.openSync(segment.file, 'r');
          const bytes = readExactly(fd, at, len);
          if (!bytes) return null;
          scanned.value = JSON.parse(bytes.toString('utf8')) as object;
        }
        ops.push(scanned);
      }
      read.lines.push(ops);
    }
  } catch {
    return null;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  return read;
}

/** A journal file's ops for a start: from its line index when one describes it, scanned otherwise. */
export function journalLines(segment: { number: number; file: string }, whole: (collection: string) => boolean): ScannedSegment {
  return readLineIndex(segment, whole) ?? scanSegment(segment, whole);
}
