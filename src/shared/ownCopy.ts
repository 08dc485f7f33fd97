// Object spread (`{ ...a, b: 1 }`, `{ ...a, ...b }`) on Node 20's V8: once a spread site has
// run a while, adding a property to its copy gives the result a hidden class (map) of its own
// every time, not the one shared by every object with the same keys. Each call then allocates a
// map and its descriptors (a few KB for a score of keys) straight into the old generation, and
// every later access of the result misses its inline caches. A run's metadata was merged so at
// every checkpoint a run worker put: a tenth of what outlived the worker's scavenges (issue 86).
// Assigning the same keys one by one keeps the shared maps.

const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * Copies `source`'s own enumerable properties (string keys in their order, then symbols) into
 * `target`, as `{ ...target, ...source }` would into a new object, and returns `target`: a
 * `__proto__` key is defined as an own property (assigning it would set the prototype).
 */
export function assignOwn<T extends object>(target: T, source: unknown): T {
  if (source === null || source === undefined) return target;
  const from = source as Record<PropertyKey, unknown>;
  const into = target as Record<PropertyKey, unknown>;
  for (const key of Object.keys(from)) {
    if (key === '__proto__') Object.defineProperty(into, key, { value: from[key], writable: true, enumerable: true, configurable: true });
    else into[key] = from[key];
  }
  if (typeof source === 'object') {
    for (const symbol of Object.getOwnPropertySymbols(from)) if (propertyIsEnumerable.call(from, symbol)) into[symbol] = from[symbol];
  }
  return target;
}
