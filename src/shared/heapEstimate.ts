// What a value read from JSON costs the main thread's heap, estimated, item by item (issue 91):
// the rules the embedded store's value cache is bounded by (adapters/embedded/heapSize.ts walks a
// value with them), and that a value made from its JSON text is measured by as it is made
// (domain/freeze.ts frozenFromJson). A parsed value outweighs its JSON several times over (a
// checkpoint of LangChain messages is mostly small objects and short strings: ~3-4 bytes of heap
// a byte of JSON). V8 on 64 bits without pointer compression, as Node ships it: an object is a
// header of three words and a word a field; an array a header, its backing store's and a word an
// item; a string a 16-byte header and a byte a character (two when it holds one beyond Latin-1);
// a number that is not a small integer a heap number of its own. Property names are shared by
// every object of a shape: not counted.

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

/** A string's. `narrow`: known to hold no character beyond Latin-1, not scanned for one. */
export function stringBytes(value: string, narrow = false): number {
  return align(STRING + value.length * (!narrow && isWide(value) ? 2 : 1));
}

/** A number's: none for a small integer (held in its slot), a heap number's otherwise. */
export const numberBytes = (value: number) => (Number.isInteger(value) && Math.abs(value) < 2 ** 30 ? 0 : HEAP_NUMBER);

/** An object of `keys` own keys, beyond what they hold. */
export const objectBytes = (keys: number) => OBJECT + (keys > FAST_KEYS ? keys * 6 * WORD : keys * WORD);

/** An array of `length` items, beyond what they hold. */
export const arrayBytes = (length: number) => ARRAY + length * WORD;

/**
 * A JSON text's own heap, and whether no string of the value it writes holds a character beyond
 * Latin-1 (`narrow`), read from the text: JSON writes such a character as it is, but for a lone
 * surrogate, which it escapes as `\udXXX` (a text holding those three characters for any reason
 * is taken as not narrow). The one scan of the text answers for every string of its value, which
 * is then taken at a byte a character.
 */
export function jsonTextBytes(json: string): { bytes: number; narrow: boolean } {
  const wide = isWide(json);
  return { bytes: align(STRING + json.length * (wide ? 2 : 1)), narrow: !wide && !json.includes('\\ud') };
}
