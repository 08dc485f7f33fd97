import { arrayBytes, jsonTextBytes, numberBytes, objectBytes, stringBytes } from '../shared/heapEstimate.ts';

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

/**
 * frozenCopy(value), sharing each part that holds the same data as the part of `previous` at
 * the same place (a frozen value: a record as the store holds it): the same keys in the same
 * order, the same primitives (Object.is), parts shared the same way. A record set again with
 * most of what it held — a thread's values after a run, every message of them but the new ones
 * — keeps the objects it had instead of a new copy of each (issue 87: a thread's values, all of
 * its messages copied at every run's end, were most of what the store's value cache gained a
 * run under 1,000 subscribers, each copy held until the next run and so copied by the main
 * thread's scavenges). The copy is what frozenCopy would make: the same JSON, frozen.
 */
export function frozenCopyAlong<T>(value: T, previous: unknown): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (previous === null || typeof previous !== 'object' || !Object.isFrozen(previous)) return frozenCopy(value);
  if (Array.isArray(value)) {
    if (!Array.isArray(previous)) return frozenCopy(value);
    const items: unknown[] = new Array(value.length);
    let same = value.length === previous.length;
    for (let i = 0; i < value.length; i += 1) {
      items[i] = frozenCopyAlong(value[i], previous[i]);
      same &&= Object.is(items[i], previous[i]);
    }
    return (same ? previous : items.length === 0 ? EMPTY_ARRAY : Object.freeze(items)) as T;
  }
  if (!isPlainObject(value) || Array.isArray(previous) || Object.getPrototypeOf(previous) !== Object.getPrototypeOf(value)) return frozenCopy(value);
  const keys = Object.keys(value);
  const before = Object.keys(previous);
  let same = keys.length === before.length;
  const items: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const was = Object.hasOwn(previous, key) ? (previous as Record<string, unknown>)[key] : undefined;
    items[i] = frozenCopyAlong((value as Record<string, unknown>)[key], was);
    same &&= before[i] === key && Object.is(items[i], was);
  }
  if (same) return previous as T;
  if (keys.length === 0 && Object.getPrototypeOf(value) === Object.prototype) return EMPTY_OBJECT as T;
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  for (let i = 0; i < keys.length; i += 1) {
    // a key named __proto__ (JSON.parse makes it an own property) is data, not the prototype
    if (keys[i] === '__proto__') Object.defineProperty(copy, '__proto__', { value: items[i], enumerable: true, writable: true, configurable: true });
    else copy[keys[i]!] = items[i];
  }
  return Object.freeze(copy) as T;
}

/** The heap counted so far by frozenCopyMeasured's walk, and how it counts a frozen part it shares. */
let copyHeap = 0;
let heapOfShared: (part: object) => number = () => 0;

/**
 * frozenCopy(value), and the heap of the copy as `shared/heapEstimate.ts`' rules count it, taken
 * in the copy's walk: what the embedded store's cache weighs a value it keeps by, which was a
 * second walk of every record written (issue 91). A frozen part the copy shares is counted by
 * `heapOfFrozen`; a top-level one first by `heapOfTopPart` (a part the store knows the weight of).
 * Undefined for a value that is not a plain object, or is frozen already.
 */
export function frozenCopyMeasured<T extends object>(
  value: T,
  heapOfFrozen: (part: object) => number,
  heapOfTopPart: (part: unknown) => number | undefined,
): { copy: T; heap: number } | undefined {
  // a record is a plain object not frozen yet; anything else is left to frozenCopy and a walk of its own
  if (Object.isFrozen(value) || Array.isArray(value) || !isPlainObject(value)) return undefined;
  copyHeap = 0;
  heapOfShared = heapOfFrozen;
  const copy = measuredObjectCopy(value, heapOfTopPart) as T;
  return { copy, heap: copyHeap };
}

const isPlainObject = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** frozenCopy's walk, adding what it copies or shares to copyHeap. */
function measuredCopy(value: unknown): unknown {
  if (typeof value === 'string') {
    copyHeap += stringBytes(value);
    return value;
  }
  if (typeof value === 'number') {
    copyHeap += numberBytes(value);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Object.isFrozen(value)) {
    copyHeap += heapOfShared(value);
    return value;
  }
  if (Array.isArray(value)) {
    copyHeap += arrayBytes(value.length);
    if (value.length === 0) return EMPTY_ARRAY;
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) items[i] = measuredCopy(value[i]);
    return Object.freeze(items);
  }
  if (!isPlainObject(value)) {
    const frozen = deepFreeze(value);
    copyHeap += heapOfShared(frozen);
    return frozen;
  }
  return measuredObjectCopy(value);
}

/**
 * measuredCopy of a plain object. At a record's top level `heapOfTopPart` may know a part's
 * weight already; such a part is copied by frozenCopy and counted at that weight.
 */
function measuredObjectCopy(value: object, heapOfTopPart?: (part: unknown) => number | undefined): object {
  if (Object.getPrototypeOf(value) === Object.prototype && isEmpty(value)) {
    copyHeap += objectBytes(0);
    return EMPTY_OBJECT;
  }
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  let keys = 0;
  for (const key of Object.keys(value)) {
    keys += 1;
    const part = (value as Record<string, unknown>)[key];
    const known = heapOfTopPart?.(part);
    let item: unknown;
    if (known === undefined) item = measuredCopy(part);
    else {
      item = frozenCopy(part);
      copyHeap += known;
    }
    // a key named __proto__ (JSON.parse makes it an own property) is data, not the prototype
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  copyHeap += objectBytes(keys);
  return Object.freeze(copy);
}

/** What a frozen value made from its JSON text (frozenFromJson) was made from, and measured as in the same walk. */
export interface MadeFromJson {
  /** The text: the value's JSON, as a store writes it. */
  readonly text: string;
  /** The value's heap and its text's, estimated by shared/heapEstimate.ts' rules (what adapters/embedded/heapSize.ts' walk gives). */
  readonly heap: number;
  /** How many levels its objects and arrays nest (the value itself, an object, is one). */
  readonly depth: number;
}

/** By value: the frozen values made from their JSON text (frozenFromJson). */
const madeFrom = new WeakMap<object, MadeFromJson>();

/** The heap counted so far by frozenInPlace's walk, and whether its strings are known narrow (jsonTextBytes). */
let walkHeap = 0;
let walkNarrow = false;

/** Whether `value` (an object or array JSON.parse made) has no item: frozenCopy's shared empty one stands for it. */
const emptyParsed = (value: object) => (Array.isArray(value) ? value.length === 0 : isEmpty(value));

/**
 * Freezes a value JSON.parse made, in place (nobody else holds it), each empty object and array
 * in it replaced by the shared one (as frozenCopy does); adds its estimated heap to walkHeap and
 * returns its depth. One walk where frozenCopy's copy and the store's walk for the depth and the
 * heap were two (issue 91).
 */
function frozenInPlace(value: object): number {
  let depth = 0;
  if (Array.isArray(value)) {
    walkHeap += arrayBytes(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      if (typeof item === 'string') walkHeap += stringBytes(item, walkNarrow);
      else if (typeof item === 'number') walkHeap += numberBytes(item);
      else if (item !== null && typeof item === 'object') {
        if (!emptyParsed(item)) depth = Math.max(depth, frozenInPlace(item));
        else {
          value[i] = sharedEmpty(item);
          depth ||= 1;
        }
      }
    }
  } else {
    let keys = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      keys += 1;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'string') walkHeap += stringBytes(item, walkNarrow);
      else if (typeof item === 'number') walkHeap += numberBytes(item);
      else if (item !== null && typeof item === 'object') {
        if (!emptyParsed(item)) depth = Math.max(depth, frozenInPlace(item));
        else {
          // an own "__proto__" (JSON.parse makes one) is a data property: `=` sets it, not the prototype
          (value as Record<string, unknown>)[key] = sharedEmpty(item);
          depth ||= 1;
        }
      }
    }
    walkHeap += objectBytes(keys);
  }
  Object.freeze(value);
  return depth + 1;
}

/** The shared empty object or array that stands for an empty one of a parse, its heap counted as heapSize's walk counts it. */
function sharedEmpty(value: object): object {
  if (!Array.isArray(value)) {
    walkHeap += objectBytes(0);
    return EMPTY_OBJECT;
  }
  walkHeap += arrayBytes(0);
  return EMPTY_ARRAY;
}

/**
 * The data JSON text holds, frozen (as frozenCopy would give it), remembering the text as its
 * JSON: a store that writes the value writes the text (jsonTextOf) instead of serialising it
 * again. A run worker's values come to the main thread as their text (shared/jsonText.ts); a
 * run's end parsed them for the thread's record, and the store serialised them back into the
 * same text, the largest JSON.stringify of a plain run on the main thread (issue 91). Frozen, the
 * value cannot come to differ from its text. It is the parse of the text, so whatever the text's
 * spelling (its escapes), it is that value's JSON, read back as that value. The parse is frozen
 * in place, not copied, and measured in the same walk (madeFromJson: its depth and its heap, which
 * the embedded store took in a walk of its own).
 */
export function frozenFromJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object') return parsed;
  // the shared empty object and array are everybody's copy of `{}` and `[]`: no text is theirs alone
  if (emptyParsed(parsed)) return Array.isArray(parsed) ? EMPTY_ARRAY : EMPTY_OBJECT;
  const textHeap = jsonTextBytes(text);
  walkHeap = 0;
  walkNarrow = textHeap.narrow;
  const depth = frozenInPlace(parsed);
  madeFrom.set(parsed, { text, heap: walkHeap + textHeap.bytes, depth });
  return parsed;
}

/** The JSON text a frozen value was made from (frozenFromJson); undefined for any other value. */
export function jsonTextOf(value: object): string | undefined {
  return madeFrom.get(value)?.text;
}

/** What a frozen value was made from and measured as (frozenFromJson); undefined for any other value. */
export function madeFromJson(value: object): MadeFromJson | undefined {
  return madeFrom.get(value);
}
