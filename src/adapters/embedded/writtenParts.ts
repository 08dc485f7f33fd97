// The large parts of paged records the store has written, with their JSON text (issue 87). A
// thread's record carries its whole `values` (every message of the thread), and a run writes
// the record twice: its enqueue marks the thread busy with the values it read, its end writes
// the new values. Each write serialised the values again, and walked them for their depth and
// their heap, so a run's cost grew with its thread's history. What the store keeps is frozen,
// so the text of a kept part cannot change: a record written again with the same part (the
// same object) reuses its text, spliced in where JSON.stringify would write it, and skips its
// walks. The journal's bytes are those JSON.stringify gives; nothing on disk changes.
import { heapBytesOf } from './heapSize.ts';
import { jsonTextOf } from '../../domain/freeze.ts';

/** A part smaller than this is serialised again: its text would cost more to keep than to make. */
export const KNOWN_PART_CHARS = 1024;

interface Known {
  /**
   * Its JSON text as UTF-8 bytes, off V8's heap: spliced into the line as they are (issue 87: a
   * thread's values' text, every message of the thread, made anew at each run's end and held
   * until the next, was copied by the main thread's scavenges).
   */
  bytes: Buffer;
  /** Its estimated heap and its text's (heapSize.ts): what the value cache counts it by. */
  heap: number;
}

/** A piece of a journal line: text, or a remembered part's bytes (Known.bytes). */
export type LinePiece = string | Buffer;

/** Keyed by the kept (frozen) part: an entry lives as long as some kept record or reader holds the part. */
const known = new WeakMap<object, Known>();

/**
 * A top-level field's text, made when the record was serialised, to remember once the record is
 * kept; and the heap estimate of both (heapSize.ts) when the depth check took it (journalStore.ts).
 */
export type FreshPart = [key: string, json: string, heap?: number];

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

function hasToJSON(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** The part's remembered entry, if it is one the store wrote and kept. */
export function knownPart(part: unknown): Known | undefined {
  return part !== null && typeof part === 'object' ? known.get(part) : undefined;
}

/**
 * JSON.stringify(value), with the text of each top-level field the store wrote before taken as
 * it was; and the large fields' texts made now (`fresh`), for `rememberParts` once the record is
 * kept. A value that is not a plain object, has a toJSON at its top, or has no part to keep
 * (noPartToKeep), is serialised whole.
 */
export function recordJson(value: object): { json: string | undefined; fresh: FreshPart[] } {
  const pieces: LinePiece[] = [];
  const { written, fresh } = recordPieces(value, pieces);
  return { json: written ? pieces.map((piece) => piece.toString()).join('') : undefined, fresh };
}

/**
 * recordJson's text as pieces pushed onto `pieces` (their join is its text; `written` false when
 * the value has no JSON, nothing pushed): the journal's line is encoded from its pieces into one
 * buffer (journalStore.ts), so a thread's values, whose remembered text is a string already, are
 * copied once, into the line's bytes, not into a record's text, a line's and then its bytes
 * (issue 87: those copies were a fifth of the main thread's allocation under the fan-out).
 * `triedWhole`: the caller made the record's whole text (or its line's) and writtenWhole said
 * it holds a part to keep: it goes part by part without that text made again.
 */
export function recordPieces(value: object, pieces: LinePiece[], triedWhole = false): { written: boolean; fresh: FreshPart[] } {
  const start = pieces.length;
  const whole = (): { written: boolean; fresh: FreshPart[] } => {
    pieces.length = start;
    const json = JSON.stringify(value) as string | undefined;
    if (json !== undefined) pieces.push(json);
    return { written: json !== undefined, fresh: [] };
  };
  if (Array.isArray(value) || !isPlain(value) || hasToJSON(value)) return whole();
  if (!triedWhole && !holdsKeptPart(value)) {
    const json = JSON.stringify(value) as string;
    if (noPartToKeep(value, json.length)) {
      pieces.push(json);
      return { written: true, fresh: [] };
    }
  }
  const fresh: FreshPart[] = [];
  let first = true;
  for (const key of Object.keys(value)) {
    const part = (value as Record<string, unknown>)[key];
    let json: LinePiece | undefined = knownPart(part)?.bytes;
    if (json === undefined) {
      // a field's toJSON is called with its key by JSON.stringify: the whole value is, then
      if (hasToJSON(part)) return whole();
      // a frozen value made from its text (a run worker's values, freeze.ts frozenFromJson) is written as that text
      json = (part !== null && typeof part === 'object' ? jsonTextOf(part) : undefined) ?? (JSON.stringify(part) as string | undefined);
      if (json === undefined) continue; // undefined, a function or a symbol: JSON.stringify leaves the key out
      if (json.length >= KNOWN_PART_CHARS && part !== null && typeof part === 'object') fresh.push([key, json]);
    }
    pieces.push(`${first ? '{' : ','}${JSON.stringify(key)}:`, json);
    first = false;
  }
  pieces.push(first ? '{}' : '}');
  return { written: true, fresh };
}

/**
 * Whether `value` may be written whole, as one JSON.stringify of it or of the journal line
 * holding it (the one difference there, the key a top-level toJSON is called with, cannot arise):
 * a plain object, no toJSON at its top, no top-level part the store remembers or made from a
 * long text. Whether it is, once its text is made, is writtenWhole's to say.
 */
export function mayBeWrittenWhole(value: object): boolean {
  return !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype && !hasToJSON(value) && !holdsKeptPart(value);
}

/**
 * Whether `value`, one mayBeWrittenWhole lets through, written in a text of `chars` characters
 * holding its JSON (its own or its journal line's), has no part to keep (noPartToKeep): then
 * that one stringify is its text, with nothing to remember of it.
 */
export function writtenWhole(value: object, chars: number): boolean {
  return noPartToKeep(value, chars);
}

/** Whether a top-level part of `value` is one the store remembers, or one made from a text long enough to keep (madeLong). */
function holdsKeptPart(value: object): boolean {
  for (const key in value) {
    const part = (value as Record<string, unknown>)[key];
    if (part !== null && typeof part === 'object' && (known.has(part) || madeLong(part))) return true;
  }
  return false;
}

/**
 * Whether no top-level part of `value`, which holds no kept part (holdsKeptPart), could be
 * remembered (its text KNOWN_PART_CHARS or longer), its JSON written in `chars` characters: then
 * the record is serialised whole, as one JSON.stringify, which writes the same text. A created
 * thread's record (its metadata, config and interrupts empty objects) went through the per-part
 * path, a JSON.stringify per key and per field and their joining: ~2.6 times one stringify of
 * the whole and ~2 KB of garbage a write (issue 86).
 *
 * A part's text is a piece of its record's: a record written in fewer characters than a part
 * worth keeping has none. A longer one is walked for the least each part writes (leastOf: each
 * string as if nothing in it were escaped); a part then writes at most the record's characters
 * less the least of everything else. Issue 91: each string was tested for a character JSON may
 * escape and bounded at 6 characters a character if it held one, ~110k instructions of a plain
 * echo run's main thread on 100 threads; now a string's length is read, nothing scanned.
 */
function noPartToKeep(value: object, chars: number): boolean {
  if (chars < KNOWN_PART_CHARS) return true;
  let least = 2; // the braces
  let most = 0; // the largest least of a part
  for (const key of Object.keys(value)) {
    const part = (value as Record<string, unknown>)[key];
    if (leftOut(part)) continue;
    const partLeast = leastOf(part, KNOWN_PART_CHARS);
    if (part !== null && typeof part === 'object') {
      if (partLeast >= KNOWN_PART_CHARS) return false; // certainly one to keep
      most = Math.max(most, partLeast);
    }
    least += (least > 2 ? 1 : 0) + key.length + 3 + partLeast; // a comma, the key quoted and its colon
  }
  return chars - least + most < KNOWN_PART_CHARS;
}

/** Whether JSON.stringify may leave a field out (undefined, a function, a symbol; a toJSON may give undefined). */
function leftOut(value: unknown): boolean {
  const type = typeof value;
  return type === 'undefined' || type === 'function' || type === 'symbol' || hasToJSON(value);
}

/**
 * The fewest characters JSON.stringify writes for `value`, or a figure ≥ `cap` once it reaches
 * it: each string its length and quotes (an escape only adds), each number a digit, what a
 * toJSON or another prototype writes none, and a field that may be left out none either.
 */
function leastOf(value: unknown, cap: number): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return 1;
    case 'boolean':
      return 4;
    case 'object': {
      if (value === null) return 4;
      if (!isPlain(value) || hasToJSON(value)) return 0;
      let least = 2;
      if (Array.isArray(value)) {
        // by index: a hole or a left-out item is written as null (a toJSON's counted as none)
        for (let i = 0; i < value.length && least < cap; i += 1) {
          const item: unknown = value[i];
          const omitted = item === undefined || typeof item === 'function' || typeof item === 'symbol';
          least += (i > 0 ? 1 : 0) + (omitted ? 4 : leastOf(item, cap - least));
        }
      } else {
        let first = true;
        for (const key of Object.keys(value)) {
          const item = (value as Record<string, unknown>)[key];
          if (leftOut(item)) continue;
          least += (first ? 0 : 1) + key.length + 3 + leastOf(item, cap - least);
          first = false;
          if (least >= cap) break;
        }
      }
      return least;
    }
    default:
      return 0;
  }
}

/** Whether `part` was made from a JSON text long enough to keep (freeze.ts frozenFromJson): the per-part path writes that text. */
function madeLong(part: object): boolean {
  return (jsonTextOf(part)?.length ?? 0) >= KNOWN_PART_CHARS;
}

/** Remembers the text of the kept record's parts serialised for it (recordJson's `fresh`). */
export function rememberParts(kept: object, fresh: readonly FreshPart[]): void {
  for (const [key, json, heap] of fresh) {
    const part = (kept as Record<string, unknown>)[key];
    if (part === null || typeof part !== 'object' || !Object.isFrozen(part) || !isPlain(part) || known.has(part)) continue;
    // the heap taken of the part as written holds for its kept copy (frozenCopy: the same keys and items)
    known.set(part, { bytes: ownBytes(json), heap: heap ?? heapBytesOf(part) + heapBytesOf(json) });
  }
}

/**
 * The text's UTF-8 bytes in memory of their own: a short Buffer.from is a slice of Node's shared
 * 8-KB pool, and one remembered part kept after the others of its slab were let go would keep
 * the whole slab.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}
