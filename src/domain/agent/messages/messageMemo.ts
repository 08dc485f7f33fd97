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
  data: Copy;
  memo: Memo;
}

/**
 * A copy of an array or of a plain object (copyOf): an object's own enumerable keys in order
 * (null for an array) and a copy of each value (each item). One class for both, two arrays
 * rather than an object: a comparison reads by index, and only the live object's keys are
 * listed.
 *
 * A value reached twice while copying (a LangChain message's `lc_kwargs` holds the very objects
 * its fields hold) is copied once, and that copy is `shared`: once a check has found a value
 * holding it, the check's other visits to the same value (by identity) take that answer
 * rather than walking it again. The answer holds for one check only (`heldIn`): between
 * checks the value may have changed.
 */
class Copy {
  shared = false;
  heldBy: object | undefined = undefined;
  heldIn = 0;
  constructor(
    readonly keys: string[] | null,
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

/**
 * The copies made so far while copying one object, by the value copied. A value is entered
 * once its copy is whole, so a cycle is not found here: it is copied until MAX_DEPTH, and so is
 * never plain data.
 */
type Copying = Map<object, Copy>;

/** A copy of plain data (primitives, arrays, plain objects); NOT_PLAIN for anything else. */
function copyOf(value: unknown, depth: number, copying: Copying): unknown {
  if (value === null || typeof value !== 'object') return value;
  const before = copying.get(value);
  if (before !== undefined) {
    before.shared = true;
    return before;
  }
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  let copy: Copy | typeof NOT_PLAIN;
  if (Array.isArray(value)) {
    copy = copyItems(value, depth, copying);
  } else {
    if (!isPlainObject(value)) return NOT_PLAIN;
    copy = copyOwn(value as Record<string, unknown>, depth, copying);
  }
  if (copy !== NOT_PLAIN) copying.set(value, copy);
  return copy;
}

function copyItems(value: unknown[], depth: number, copying: Copying): Copy | typeof NOT_PLAIN {
  const items: unknown[] = new Array(value.length);
  for (let i = 0; i < value.length; i += 1) {
    const item = copyOf(value[i], depth + 1, copying);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    items[i] = item;
  }
  return new Copy(null, items);
}

function copyOwn(value: Record<string, unknown>, depth: number, copying: Copying): Copy | typeof NOT_PLAIN {
  const keys = Object.keys(value);
  const values: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    const item = copyOf(value[keys[i]], depth + 1, copying);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    values[i] = item;
  }
  return new Copy(keys, values);
}

/** The number of the check under way: a shared copy's `heldIn` names the check that found it held. */
let check = 0;

/**
 * Whether `value` holds the same plain data as `copy` (made by copyOf).
 */
function holds(value: unknown, copy: unknown): boolean {
  // a copy that is an object is a Copy (copyOf), never the value itself; asked first, so that
  // a primitive is compared as one
  if (typeof copy !== 'object' || copy === null) return value === copy;
  if (typeof value !== 'object' || value === null) return false;
  const copied = copy as Copy;
  if (copied.heldIn === check && copied.heldBy === value) return true;
  const held =
    copied.keys === null
      ? Array.isArray(value) && holdsItems(value, copied.values)
      : isPlainObject(value) && holdsOwn(value as Record<string, unknown>, copied);
  if (held && copied.shared) {
    copied.heldBy = value;
    copied.heldIn = check;
  }
  return held;
}

function holdsItems(value: unknown[], items: unknown[]): boolean {
  if (value.length !== items.length) return false;
  for (let i = 0; i < items.length; i += 1) {
    if (!holds(value[i], items[i])) return false;
  }
  return true;
}

function holdsOwn(value: Record<string, unknown>, copy: Copy): boolean {
  const copied = copy.keys!;
  const values = copy.values;
  let i = 0;
  // for-in lists the own enumerable keys in Object.keys' order, then any inherited enumerable
  // one: an object with one of those never matches (and is copied afresh), so a match is a
  // match of Object.keys; and it lists them without making an array of them
  for (const key in value) {
    if (i === copied.length || key !== copied[i]) return false;
    if (!holds(value[key], values[i])) return false;
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
    check += 1;
    if (entry && entry.prototype === prototype && holdsOwn(object as Record<string, unknown>, entry.data)) return entry.memo;
    const data = copyOwn(object as Record<string, unknown>, 0, new Map());
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
