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

function stringBytes(value: string): number {
  const wide = value.length > 0 && BEYOND_LATIN1.test(value);
  return align(STRING + value.length * (wide ? 2 : 1));
}

/**
 * The estimated heap bytes of `value` (plain data: objects, arrays, strings, numbers, booleans,
 * null); `knownPart` gives those of a top-level field already counted once (writtenParts.ts).
 */
export function heapBytesOf(value: unknown, knownPart?: (part: unknown) => number | undefined): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < 2 ** 30 ? 0 : HEAP_NUMBER;
    case 'object':
      break;
    default:
      return 0;
  }
  if (value === null) return 0;
  // walked by index and by `for…in`, not by an iterator and Object.keys: the walk runs on every
  // value the store keeps, and those made an array of keys and iterator results per object
  // (issue 87: ~4% of the main thread's allocation under the fan-out)
  if (Array.isArray(value)) {
    let bytes = ARRAY + value.length * WORD;
    for (let i = 0; i < value.length; i += 1) bytes += heapBytesOf(value[i]);
    return bytes;
  }
  let bytes = 0;
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    keys += 1;
    const part = (value as Record<string, unknown>)[key];
    bytes += knownPart?.(part) ?? heapBytesOf(part);
  }
  return bytes + OBJECT + (keys > FAST_KEYS ? keys * 6 * WORD : keys * WORD);
}
