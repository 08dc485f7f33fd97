/**
 * A shallow copy of `base` with `changes` on top: what `{ ...base, ...changes }` means (own
 * enumerable string keys, each defined as a data property), for the objects made on hot paths
 * and kept (messages, run records). On Node 20's V8 a literal that starts with a spread, at a
 * site that has seen many shapes, and Object.assign onto an empty object, can give the copy a
 * hidden class derived from the source's own — and a source made the same way has one of its
 * own. Kept by the thousand (the messages of finished runs' last values), every object then
 * carries a map of its own: memory, and work for every garbage collection. Properties added one
 * by one to a fresh literal follow the shared transitions from the empty object instead.
 */
export function copyWith<T extends object, C extends object>(base: T, changes: C): Omit<T, keyof C> & C {
  const out: Record<string, unknown> = {};
  copyInto(out, base);
  copyInto(out, changes);
  return out as Omit<T, keyof C> & C;
}

/**
 * Copies `from`'s own enumerable string keys onto `out` one by one, as a spread would (an own
 * `__proto__` kept as a property); with `keep`, only the keys it accepts.
 */
export function copyInto(out: Record<string, unknown>, from: object, keep?: (key: string, value: unknown) => boolean): void {
  for (const key of Object.keys(from)) {
    const value = (from as Record<string, unknown>)[key];
    if (keep && !keep(key, value)) continue;
    // an own "__proto__" (JSON.parse makes one) stays a property, as a spread keeps it; `=` would set the prototype
    if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    else out[key] = value;
  }
}
