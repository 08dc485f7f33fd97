// The JSON text of a stream event's data, as JSON.stringify would write it, with each message
// dict that is a copy of a memoised one (messages.ts) written as its memo's text: a `values`
// event of a long thread holds the same messages run after run, so their text is made once.
// A run worker posts events as this text (runWorker.ts, shared/jsonText.ts).
import { isPlainObject } from './messageMemo.ts';
import { messageWireText, serialiseValues, wireMemoOf } from './messages.ts';

/** Deeper than this is taken for a cycle (JSON.stringify would throw on one too). */
const MAX_DEPTH = 64;

/**
 * `value` as JSON.stringify(value) writes it; undefined where JSON.stringify gives undefined
 * (undefined, a function, a symbol). Throws where it throws (a BigInt, a cycle).
 */
export function wireJson(value: unknown): string | undefined {
  return write(value, 0);
}

function write(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // a Date, a class with its own toJSON, a Map, a boxed primitive: as JSON.stringify says
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  if (depth > MAX_DEPTH) throw new TypeError('wireJson: nested too deep (a cycle?)');
  if (Array.isArray(value)) return writeArray(value, depth, write);
  if (!isPlainObject(value)) return JSON.stringify(value);
  const memo = wireMemoOf(value);
  if (memo) return (memo.wireText ??= JSON.stringify(memo.wire));
  return writeObject(value as Record<string, unknown>, depth, write);
}

type Writer = (value: unknown, depth: number) => string | undefined;

/** An array as JSON.stringify writes it, each item by `writeItem` (undefined as null). */
function writeArray(value: unknown[], depth: number, writeItem: Writer): string {
  let text = '[';
  for (let i = 0; i < value.length; i += 1) text += (i ? ',' : '') + (writeItem(value[i], depth + 1) ?? 'null');
  return text + ']';
}

/** An object's own enumerable properties as JSON.stringify writes them, each value by `writeItem` (undefined left out). */
function writeObject(record: Record<string, unknown>, depth: number, writeItem: Writer): string {
  let text = '{';
  let first = true;
  for (const key of Object.keys(record)) {
    const item = writeItem(record[key], depth + 1);
    if (item === undefined) continue;
    text += (first ? '' : ',') + JSON.stringify(key) + ':' + item;
    first = false;
  }
  return text + '}';
}

/**
 * wireJson(serialiseValues(value)), written straight from the graph's objects: a `values`
 * event is the thread's every message, and going through serialiseValues first copies each
 * message's memoised dict (and registers the copy) only for wireJson to find its text again.
 */
export function valuesJson(value: unknown): string | undefined {
  return writeValues(value, 0);
}

function writeValues(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (depth > MAX_DEPTH) throw new TypeError('valuesJson: nested too deep (a cycle?)');
  const v = value as Record<string, unknown>;
  if (typeof v._getType === 'function') return messageWireText(v) ?? write(serialiseValues(v), depth);
  if (Array.isArray(value)) return writeArray(value, depth, writeValues);
  // an Error, a Date, anything with its own toJSON: as serialiseValues turns it, then written
  if (value instanceof Error || typeof v.toJSON === 'function') return write(serialiseValues(value), depth);
  // any other object as serialiseValues copies it: its own enumerable properties
  return writeObject(v, depth, writeValues);
}

/**
 * JSON.stringify(value) when that is exactly wireJson(serialiseValues(value)): `value` is plain
 * data all through (plain objects and arrays, none with a toJSON or a `_getType` of its own,
 * primitives, and what JSON leaves out: undefined, functions, symbols), so serialiseValues
 * would copy it as it is. Undefined for anything else (a LangChain message, an Error, a Date, a
 * class instance, a cycle or a tree deeper than MAX_DEPTH, a BigInt): the caller serialises it.
 * A check reading every value once, then the native stringify: a `values` event of the plain
 * runner's state costs the text without the copy serialiseValues made first (issue 87). A
 * getter is read twice (once by each), as JSON.stringify of a copy would not read it.
 */
export function plainValuesJson(value: unknown): string | undefined {
  if (!plainData(value, 0)) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function plainData(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'bigint';
  if (depth > MAX_DEPTH) return false;
  const v = value as Record<string, unknown>;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || v.toJSON !== undefined) return false;
    for (let i = 0; i < value.length; i += 1) if (!plainData(value[i], depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value) || v.toJSON !== undefined || v._getType !== undefined) return false;
  for (const key in v) if (!plainData(v[key], depth + 1)) return false;
  return true;
}
