// What a value read from JSON costs the main thread's heap, estimated (issue 91): the cache of
// paged values (pagedValues.ts) is bounded by this, not by the value's JSON, which a parsed
// value outweighs several times over (a checkpoint of LangChain messages is mostly small
// objects and short strings: ~3-4 bytes of heap a byte of JSON). V8 on 64 bits without pointer
// compression, as Node ships it: an object is a header of three words and a word a field; an
// array a header, its backing store's and a word an item; a string a 16-byte header and a byte
// a character (two when it holds one beyond Latin-1); a number that is not a small integer a
// heap number of its own. Property names are shared by every object of a shape: not counted.
// A part shared with another value (frozen copies share frozen parts) is counted in each, so the
// estimate errs high.

const WORD = 8;
const OBJECT = 3 * WORD;
const ARRAY = 4 * WORD + 2 * WORD;
const STRING = 16;
const HEAP_NUMBER = 16;
/** Beyond this many keys V8 keeps an object's properties in a hash table: ~3 words a key, at half load. */
const FAST_KEYS = 128;
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

const align = (bytes: number) => Math.ceil(bytes / WORD) * WORD;

const isWide = (text: string) => text.length > 0 && BEYOND_LATIN1.test(text);

/** `narrow`: known to hold no character beyond Latin-1, not scanned for one. */
function stringBytes(value: string, narrow = false): number {
  return align(STRING + value.length * (!narrow && isWide(value) ? 2 : 1));
}

/** An object of `keys` own keys, beyond what they hold. */
const objectBytes = (keys: number) => OBJECT + (keys > FAST_KEYS ? keys * 6 * WORD : keys * WORD);

/**
 * The estimated heap bytes of `value` (plain data: objects, arrays, strings, numbers, booleans,
 * null); `knownPart` gives those of a top-level field already counted once (writtenParts.ts).
 */
export function heapBytesOf(value: unknown, knownPart?: (part: unknown) => number | undefined): number {
  return walk(value, Infinity, false, false, knownPart)!;
}

/** heapWithin's answer for a value whose objects and arrays nest deeper than its limit. */
export const TOO_DEEP = -1;

/**
 * heapBytesOf(json), JSON.stringify's text of a value, and whether no string of that value holds
 * a character beyond Latin-1 (`narrow`), read from the text: JSON writes such a character as it
 * is, but for a lone surrogate, which it escapes as `\udXXX` (a text holding those three
 * characters for any reason is taken as not narrow). The scan the text's own estimate makes
 * answers for every string of the value, which heapWithin then takes at a byte a character.
 */
export function jsonTextBytes(json: string): { bytes: number; narrow: boolean } {
  const wide = isWide(json);
  return { bytes: align(STRING + json.length * (wide ? 2 : 1)), narrow: !wide && !json.includes('\\ud') };
}

/**
 * heapBytesOf(value), taken in the walk that checks its depth: TOO_DEEP when its objects and
 * arrays nest more than `limit` levels (the value itself, an object, is one level: the rule of
 * journalStore.ts' nestsDeeper); undefined when something in it has a toJSON, whose JSON's depth
 * is the toJSON's (nestsDeeper walks that one). `narrow`: no string in it holds a character beyond
 * Latin-1 (jsonTextBytes), so none is scanned for one. A large part the store writes (a thread's
 * values: every message of the thread, new at each run's end) was walked once for its depth and
 * once more for its heap, scanning each string; now once, scanning none (issue 91).
 */
export function heapWithin(value: unknown, limit: number, narrow = false): number | undefined {
  return walk(value, limit, narrow, true);
}

/** heapBytesOf's walk, and heapWithin's (`json`: a toJSON found ends it, undefined). */
function walk(value: unknown, limit: number, narrow: boolean, json: boolean, knownPart?: (part: unknown) => number | undefined): number | undefined {
  switch (typeof value) {
    case 'string':
      return stringBytes(value, narrow);
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < 2 ** 30 ? 0 : HEAP_NUMBER;
    case 'object':
      break;
    default:
      return 0;
  }
  if (value === null) return 0;
  if (json && typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  if (limit < 1) return TOO_DEEP;
  // walked by index and by `for…in`, not by an iterator and Object.keys: the walk runs on every
  // value the store keeps, and those made an array of keys and iterator results per object
  // (issue 87: ~4% of the main thread's allocation under the fan-out)
  if (Array.isArray(value)) {
    let bytes = ARRAY + value.length * WORD;
    for (let i = 0; i < value.length; i += 1) {
      const item = walk(value[i], limit - 1, narrow, json);
      if (item === undefined || item === TOO_DEEP) return item;
      bytes += item;
    }
    return bytes;
  }
  let bytes = 0;
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    keys += 1;
    const part = (value as Record<string, unknown>)[key];
    const item = knownPart?.(part) ?? walk(part, limit - 1, narrow, json);
    if (item === undefined || item === TOO_DEEP) return item;
    bytes += item;
  }
  return bytes + objectBytes(keys);
}
