// Work done once per LangChain object (a message, mostly) and reused while the object is
// unchanged. A thread's state keeps the same message objects from run to run and step to step
// (the state a run ended on is kept as put, see checkpointer.ts), and every checkpoint and every
// `values` event serialises all of them again: LangChain's `toJSON` (aliases, key mapping,
// escaping) costs several microseconds a message, so a thread of a few hundred messages spent
// most of each run re-serialising messages it had serialised before.
//
// Objects are not immutable: a node may change a message in place. So a memo is kept with a
// copy of the object's data (its own enumerable properties, deeply) and used only while the
// object still holds that data: comparing is a fraction of serialising. An object holding
// anything but plain data (a Date, a Map, a class instance, a cycle) has no memo: what such a
// value holds cannot be compared this way.

/** What is worked out from an object once, while it is unchanged. Filled in by the users. */
export interface Memo {
  /** The checkpoint serialiser's text of the object (checkpointer.ts). */
  checkpointText?: string;
  /** The object as a message dict on the wire (messages.ts). */
  wire?: unknown;
  /** The JSON text of `wire` (wireJson.ts). */
  wireText?: string;
  /** The JSON text of `wire` as a protocol `values` event writes a message of the state (protocol/protocolValuesText.ts). */
  protocolText?: string;
}

interface Entry {
  prototype: object | null;
  data: Copied;
  memo: Memo;
}

/**
 * A copy of an object's data: its own enumerable keys in order and a copy of each value (an
 * array's copy is an array of copies). Kept as two arrays rather than as an object: a
 * comparison then reads by index, and only the live object's keys are listed.
 */
class Copied {
  constructor(
    readonly keys: string[],
    readonly values: unknown[],
  ) {}
}

const entries = new WeakMap<object, Entry>();

/** A copy that cannot hold the data of a value: not plain data, or nested deeper than this. */
const NOT_PLAIN = Symbol('not plain data');
const MAX_DEPTH = 32;

export function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A copy of plain data (primitives, arrays, plain objects); NOT_PLAIN for anything else. */
function copyOf(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const item = copyOf(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  if (!isPlainObject(value)) return NOT_PLAIN;
  return copyOwn(value as Record<string, unknown>, depth);
}

function copyOwn(value: Record<string, unknown>, depth: number): Copied | typeof NOT_PLAIN {
  const keys = Object.keys(value);
  const values: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    const item = copyOf(value[keys[i]], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    values[i] = item;
  }
  return new Copied(keys, values);
}

/**
 * Whether `value` holds the same plain data as `copy` (made by copyOf). A copy is never the
 * object it copies (arrays and objects are copied afresh), so `value === copy` is a primitive
 * that matches: the common case (a string, a number) is decided without a call.
 */
function holds(value: unknown, copy: unknown): boolean {
  if (value === copy) return true;
  if (value === null || typeof value !== 'object' || copy === null || typeof copy !== 'object') return false;
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || value.length !== copy.length) return false;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i];
      const copied = copy[i];
      if (item !== copied && !holds(item, copied)) return false;
    }
    return true;
  }
  if (!(copy instanceof Copied) || !isPlainObject(value)) return false;
  return holdsOwn(value as Record<string, unknown>, copy);
}

function holdsOwn(value: Record<string, unknown>, copy: Copied): boolean {
  const copied = copy.keys;
  const values = copy.values;
  let i = 0;
  // for-in lists the own enumerable keys in Object.keys' order, then any inherited enumerable
  // one: an object with one of those never matches (and is copied afresh), so a match is a
  // match of Object.keys; and it lists them without making an array of them
  for (const key in value) {
    if (i === copied.length || key !== copied[i]) return false;
    const item = value[key];
    const was = values[i];
    if (item !== was && !holds(item, was)) return false;
    i += 1;
  }
  return i === copied.length;
}

/**
 * The memo of `object` (an instance of a class: its own enumerable properties are its data),
 * empty when the object is new or changed since; undefined when its data cannot be compared.
 */
export function memoOf(object: object): Memo | undefined {
  try {
    const entry = entries.get(object);
    const prototype = Object.getPrototypeOf(object);
    if (entry && entry.prototype === prototype && holdsOwn(object as Record<string, unknown>, entry.data)) return entry.memo;
    const data = copyOwn(object as Record<string, unknown>, 0);
    if (data !== NOT_PLAIN) {
      const memo: Memo = {};
      entries.set(object, { prototype, data, memo });
      return memo;
    }
  } catch {
    // a getter among its properties threw (or a proxy): its data cannot be read this way
  }
  entries.delete(object);
  return undefined;
}

/** Whether `value` is a LangChain serialisable object (a message, a document): what has memos. */
export function isLangChainSerializable(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || isPlainObject(value)) return false;
  const v = value as { lc_serializable?: unknown; toJSON?: unknown };
  return typeof v.toJSON === 'function' && 'lc_serializable' in v;
}
