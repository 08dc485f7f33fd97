/**
 * Freezes a value and everything inside it. The store freezes what it keeps so nobody can
 * change a record without writing it; views built from records are frozen the same way so
 * they can be cached and their JSON reused.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
