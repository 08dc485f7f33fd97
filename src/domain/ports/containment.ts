// What `contains` in a list means, on every store: the field is an object holding each of
// the wanted top-level keys with an equal value (the metadata filters of the searches).
// PostgreSQL narrows the rows with `@>` first, which also matches partial nested values and
// array subsets, so this exact test runs on what it returns.

/** Metadata containment: every key of `wanted` is present in `value` with an equal value. */
export function containsAll(value: unknown, wanted: Record<string, unknown>): boolean {
  if (!value || typeof value !== 'object') return Object.keys(wanted).length === 0;
  const record = value as Record<string, unknown>;
  // own properties only: `{"__proto__": {}}` in a filter must not match through the prototype
  return Object.entries(wanted).every(([k, v]) => Object.hasOwn(record, k) && deepEqual(record[k], v));
}

/** Structural equality of JSON values (own properties only). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
