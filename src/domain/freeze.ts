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

/**
 * The one empty object and the one empty array every frozen copy shares: frozen, nobody can
 * tell them from copies of their own, and most records hold a few (a thread's metadata, config
 * and interrupts): ~56 bytes each, ~17 MB of a server holding 100,000 threads.
 */
const EMPTY_OBJECT: object = Object.freeze({});
const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);

/** No own enumerable key: nothing the copy below would take (it takes Object.keys). */
function isEmpty(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * A frozen deep copy of plain data (objects, arrays, primitives), sharing whatever is frozen
 * already; anything else (a class instance) is frozen in place as deepFreeze does. For what the
 * store keeps: records are mostly made by spread (`{ ...record, status }`), and V8 gives an
 * object made by spread a hidden class of its own once it is frozen (~280 bytes an object,
 * and ~2 µs to make), where an object built key by key shares its frozen hidden class with
 * every object of its shape. With 100,000 threads that was ~28 MB of the store's memory.
 */
export function frozenCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return EMPTY_ARRAY as T;
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) items[i] = frozenCopy(value[i]);
    return Object.freeze(items) as T;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return deepFreeze(value);
  if (prototype === Object.prototype && isEmpty(value)) return EMPTY_OBJECT as T;
  const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
  for (const key of Object.keys(value)) {
    const item = frozenCopy((value as Record<string, unknown>)[key]);
    // a key named __proto__ (JSON.parse makes it an own property) is data, not the prototype
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return Object.freeze(copy) as T;
}

/** The JSON texts of frozen values made from them (frozenFromJson), by value. */
const madeFrom = new WeakMap<object, string>();

/**
 * frozenCopy of the data JSON text holds, remembering the text as the copy's JSON: a store
 * that writes the copy writes the text (jsonTextOf) instead of serialising the copy again. A
 * run worker's values come to the main thread as their text (shared/jsonText.ts); a run's end
 * parsed them for the thread's record, and the store serialised them back into the same text,
 * the largest JSON.stringify of a plain run on the main thread (issue 91). Frozen, the copy
 * cannot come to differ from its text. The copy is the parse of the text, so whatever the
 * text's spelling (its escapes), it is that value's JSON, read back as that value.
 */
export function frozenFromJson(text: string): unknown {
  const value: unknown = frozenCopy(JSON.parse(text));
  // the shared empty object and array are everybody's copy of `{}` and `[]`: no text is theirs alone
  if (value !== null && typeof value === 'object' && value !== EMPTY_OBJECT && value !== EMPTY_ARRAY) madeFrom.set(value, text);
  return value;
}

/** The JSON text a frozen value was made from (frozenFromJson); undefined for any other value. */
export function jsonTextOf(value: object): string | undefined {
  return madeFrom.get(value);
}
