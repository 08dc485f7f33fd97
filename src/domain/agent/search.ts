// Filtering and ordering shared by the assistant and thread searches.

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

/** A stable sort on one string field; ties keep their stored (creation) order. */
export function sortBy<T extends object>(items: T[], field: string, order: 'asc' | 'desc'): T[] {
  const sign = order === 'asc' ? 1 : -1;
  return items
    .map((item, index) => ({ item, index }))
    .sort((x, y) => {
      const a = String((x.item as Record<string, unknown>)[field] ?? '');
      const b = String((y.item as Record<string, unknown>)[field] ?? '');
      return a < b ? -sign : a > b ? sign : (x.index - y.index) * sign;
    })
    .map((e) => e.item);
}
