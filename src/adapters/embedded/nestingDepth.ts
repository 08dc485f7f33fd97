// How deep the embedded store lets a value nest: every recursive walk after the store (snapshots,
// replies) must be able to read it back. Its own module: a run worker checks its checkpoint
// writes' values by it (textPut.ts) without loading the store.

/** Deeper values are refused. */
export const STORE_MAX_DEPTH = 1000;

/**
 * Whether `value`, as JSON, nests objects and arrays more than `limit` levels deep (the value
 * itself, an object, is one level). Called on values JSON.stringify took, so without cycles;
 * it descends no further than `limit`, so a deep value cannot overflow the stack here.
 */
export function nestsDeeper(given: unknown, limit: number): boolean {
  // what JSON.stringify writes of it (a Date: a string); what toJSON gives is written as it is
  const value =
    given !== null && typeof given === 'object' && typeof (given as { toJSON?: unknown }).toJSON === 'function'
      ? (given as { toJSON(): unknown }).toJSON()
      : given;
  if (value === null || typeof value !== 'object') return false;
  if (limit < 1) return true;
  if (Array.isArray(value)) {
    // by index: an iterator's results were ~1% of the main thread's allocation under the fan-out (issue 87)
    for (let i = 0; i < value.length; i += 1) if (nestsDeeper(value[i], limit - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && nestsDeeper((value as Record<string, unknown>)[key], limit - 1)) return true;
  }
  return false;
}
