// What a value read from JSON costs the main thread's heap, estimated (issue 91): the cache of
// paged values (pagedValues.ts) is bounded by this, not by the value's JSON. The rules per item
// are shared/heapEstimate.ts'; here, the walks of a value by them. A part shared with another
// value (frozen copies share frozen parts) is counted in each, so the estimate errs high.
import { arrayBytes, jsonTextBytes, numberBytes, objectBytes, stringBytes } from '../../shared/heapEstimate.ts';

export { jsonTextBytes };

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
      return numberBytes(value);
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
    let bytes = arrayBytes(value.length);
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
