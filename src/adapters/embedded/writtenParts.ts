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
  json: string;
  /** Its estimated heap and its text's (heapSize.ts). */
  heap: number;
}

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
  const pieces: string[] = [];
  const { written, fresh } = recordPieces(value, pieces);
  return { json: written ? pieces.join('') : undefined, fresh };
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
export function recordPieces(value: object, pieces: string[], triedWhole = false): { written: boolean; fresh: FreshPart[] } {
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
    let json = knownPart(part)?.json;
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
 * the whole and ~2 KB of garbage a write (issue 86). A part's text is a piece of the record's:
 * a record written in fewer characters than a part worth keeping has none, and its strings are
 * not scanned for a character JSON escapes (issue 91: ~160k instructions of a run's main
 * thread bounded a plain echo run's records, each a few hundred characters, key by key).
 */
function noPartToKeep(value: object, chars: number): boolean {
  if (chars < KNOWN_PART_CHARS) return true;
  for (const key in value) {
    const part = (value as Record<string, unknown>)[key];
    if (part !== null && typeof part === 'object' && !writesUnder(part, KNOWN_PART_CHARS)) return false;
  }
  return true;
}

/** Whether `part` was made from a JSON text long enough to keep (freeze.ts frozenFromJson): the per-part path writes that text. */
function madeLong(part: object): boolean {
  return (jsonTextOf(part)?.length ?? 0) >= KNOWN_PART_CHARS;
}

/** Escaped, a character of a string is written as 6 at most (\u001f, a lone surrogate's \udXXX). */
const ESCAPED = 6;

/**
 * A character JSON.stringify may write as more than itself: a quote, a backslash, a control
 * character, a surrogate (a lone one is escaped; a pair is written as it is, but is not told
 * apart here).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON.stringify escapes
const MAY_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The most characters JSON.stringify writes for a string (or a key) and its quotes: its own
 * length when no character of it may be escaped, else each as if escaped. A run's record (its
 * kwargs, its trace) and a checkpoint's metadata are ~500–700 characters of JSON but were bounded
 * at 6 a character (~3,000): each such record went part by part, a stringify per field and its
 * key, each piece measured and encoded apart, for no part to remember (issue 91: 48 against
 * 35 µs of CPU to serialise a plain echo run's values).
 */
function stringBound(text: string): number {
  return (MAY_ESCAPE.test(text) ? text.length * ESCAPED : text.length) + 2;
}

/**
 * Whether JSON.stringify(part) is certainly shorter than `budget`, by a bound taken without
 * writing it: each string as if every character were escaped, each number at its longest.
 * Stops (false) as soon as the bound reaches the budget, so a large part costs a few fields.
 */
function writesUnder(part: object, budget: number): boolean {
  return boundOf(part, budget) < budget;
}

/** An upper bound on the length of the JSON of `value`, or a figure ≥ `budget` once it reaches it. */
function boundOf(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return stringBound(value);
    case 'number':
      return 25; // -0.0000012345678901234567
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      // a toJSON or a Map, a Date...: not bounded here (the whole record is still correct by the per-part path)
      if (!isPlain(value) || hasToJSON(value)) return budget;
      let bound = 2;
      if (Array.isArray(value)) {
        // by index: a hole is written (null), which a walk of the keys would not see
        for (let i = 0; i < value.length && bound < budget; i += 1) bound += 1 + boundOf(value[i], budget - bound);
      } else {
        for (const key in value) {
          bound += stringBound(key) + 2 + boundOf((value as Record<string, unknown>)[key], budget - bound);
          if (bound >= budget) break;
        }
      }
      return Math.min(bound, budget);
    }
    default:
      return 4; // undefined, a function or a symbol: left out, or null in an array
  }
}

/** Remembers the text of the kept record's parts serialised for it (recordJson's `fresh`). */
export function rememberParts(kept: object, fresh: readonly FreshPart[]): void {
  for (const [key, json, heap] of fresh) {
    const part = (kept as Record<string, unknown>)[key];
    if (part === null || typeof part !== 'object' || !Object.isFrozen(part) || !isPlain(part) || known.has(part)) continue;
    // the heap taken of the part as written holds for its kept copy (frozenCopy: the same keys and items)
    known.set(part, { json, heap: heap ?? heapBytesOf(part) + heapBytesOf(json) });
  }
}
