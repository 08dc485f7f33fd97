// The text a checkpoint (or a pending write) is stored as: what LangGraph's serialiser makes of
// it, with the text of each LangChain object in it (messages, mostly) made once and reused
// while the object is unchanged (messageMemo.ts). A thread's checkpoints hold the same
// messages over and over; serialising each again at every put was most of a long thread's run.
//
// The value is copied down to those objects (plain objects and arrays only), each object is
// put in the copy as a placeholder string, the copy goes through the serialiser as the whole
// value would, and each placeholder's JSON is then replaced by the object's text, which is
// what the serialiser makes of the object alone: the same JSON as serialising the value whole.
import { randomUUID } from 'node:crypto';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { isLangChainSerializable, isPlainObject, memoOf, type Memo } from '../messages/messageMemo.ts';

export type Serde = BaseCheckpointSaver['serde'];

/** A value as stored: JSON text, or the base64 of bytes the serialiser gave as they are. */
export interface Serialised {
  type: string;
  text?: string;
  b64?: string;
}

// control characters and a random id: no string of the value can be mistaken for one
const MARK = `\u0000agentplane-object-${randomUUID()}:`;
const MARK_JSON = JSON.stringify(MARK).slice(0, -1);
const PLACEHOLDER = new RegExp(`${escapeRegExp(MARK_JSON)}(\\d+)"`, 'g');

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `value` with every memoised LangChain object in it replaced by a placeholder (the object
 * and its memo pushed on `found`), copied only where something was replaced; `value` itself
 * otherwise.
 */
function withPlaceholders(value: unknown, found: { object: object; memo: Memo }[], depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (isLangChainSerializable(value)) {
    const memo = memoOf(value as object);
    if (!memo) return value;
    found.push({ object: value as object, memo });
    return MARK + String(found.length - 1);
  }
  // an array with its own toJSON is serialised as its toJSON says: left whole (a copy would lose it)
  if (Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item = withPlaceholders(value[i], found, depth + 1);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  // a plain object with its own toJSON is serialised as its toJSON says: left whole
  if (!isPlainObject(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = withPlaceholders(record[key], found, depth + 1);
    if (item === record[key]) continue;
    if (!copy) {
      copy = {};
      for (const k of Object.keys(record)) Object.defineProperty(copy, k, { value: record[k], enumerable: true, writable: true, configurable: true });
    }
    copy[key] = item;
  }
  return copy ?? value;
}

/** The serialiser's JSON text of `value`; undefined when it gives bytes. */
async function jsonOf(serde: Serde, value: unknown): Promise<string | undefined> {
  const [type, bytes] = await serde.dumpsTyped(value);
  return type === 'json' ? Buffer.from(bytes).toString('utf8') : undefined;
}

/**
 * LangGraph's own serialiser's class (the one every checkpointer here uses), imported on first
 * use from the checkpoint package LangGraph re-exports it from: a server or test that never
 * reads or writes a checkpoint never loads it, one that does not load all of LangGraph.
 */
let langGraphSerdeClass: Promise<new () => Serde> | undefined;
/** The class once imported: serialise then takes it without an await (see serialise). */
let loadedSerdeClass: (new () => Serde) | undefined;
const serdeClass = () =>
  (langGraphSerdeClass ??= import('@langchain/langgraph-checkpoint').then(
    ({ MemorySaver }) => (loadedSerdeClass = new MemorySaver().serde.constructor as new () => Serde),
  ));

/** A new LangGraph serialiser (LangGraph is imported then, once). */
export async function langGraphSerde(): Promise<Serde> {
  return new (await serdeClass())();
}

/** Deeper than this is left to the serialiser (which cuts cycles). */
const MAX_PLAIN_DEPTH = 64;

/**
 * The JSON of a value made of plain data and LangChain objects, as text pieces between its
 * LangChain objects (whose text is their memo's). Plain data is null, strings, booleans,
 * numbers, arrays and plain objects of them: LangGraph's serialiser writes it exactly as
 * JSON.stringify does (its replacer leaves it alone), and a LangChain object exactly as it
 * writes the object alone. Anything its replacer rewrites (undefined, a Set, a Map, a Date's
 * toJSON, a Send, bytes, a class instance) or an object without a memo makes it `false`.
 */
class PlainJson {
  readonly pieces: string[] = [];
  readonly objects: { object: object; memo: Memo }[] = [];
  private text = '';

  add(value: unknown, depth: number): boolean {
    if (value === null) return this.put('null');
    const type = typeof value;
    if (type === 'string' || type === 'boolean' || type === 'number') return this.put(JSON.stringify(value));
    if (type !== 'object' || depth > MAX_PLAIN_DEPTH) return false;
    if (isLangChainSerializable(value)) {
      const memo = memoOf(value as object);
      if (!memo) return false;
      this.pieces.push(this.text);
      this.text = '';
      this.objects.push({ object: value as object, memo });
      return true;
    }
    if (Array.isArray(value)) {
      // the serialiser writes what an array's own toJSON gives, not its items
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
      this.text += '[';
      for (let i = 0; i < value.length; i += 1) {
        if (i > 0) this.text += ',';
        // a hole reads as undefined: not plain
        if (!this.add(value[i], depth + 1)) return false;
      }
      return this.put(']');
    }
    const record = value as Record<string, unknown>;
    if (!isPlainObject(record) || typeof record.toJSON === 'function' || record.lg_name === 'Send') return false;
    this.text += '{';
    let first = true;
    for (const key of Object.keys(record)) {
      this.text += (first ? '' : ',') + JSON.stringify(key) + ':';
      first = false;
      if (!this.add(record[key], depth + 1)) return false;
    }
    return this.put('}');
  }

  /** The whole text, once every object's memo has its text. */
  joined(): string {
    let text = this.pieces.length ? this.pieces[0] : this.text;
    for (let i = 0; i < this.objects.length; i += 1) text += this.objects[i].memo.checkpointText! + (this.pieces[i + 1] ?? this.text);
    return text;
  }

  private put(text: string): true {
    this.text += text;
    return true;
  }
}

/** `value` serialised as LangGraph's serialiser does, reusing the text of unchanged LangChain objects. */
export async function serialise(serde: Serde, value: unknown): Promise<Serialised> {
  // plain data around LangChain objects, with LangGraph's own serialiser: written here
  // without its walk for cycles, its replacer call per value and its UTF-8 round trip
  // no await once the class is known: one less tick for every value written
  if (serde.constructor === (loadedSerdeClass ?? (await serdeClass()))) {
    const plain = new PlainJson();
    if (plain.add(value, 0)) {
      for (const { object, memo } of plain.objects) memo.checkpointText ??= await jsonOf(serde, object);
      if (plain.objects.every(({ memo }) => memo.checkpointText !== undefined)) return { type: 'json', text: plain.joined() };
    }
  }
  const found: { object: object; memo: Memo }[] = [];
  let copy = withPlaceholders(value, found, 0);
  for (const { object, memo } of found) memo.checkpointText ??= await jsonOf(serde, object);
  // an object the serialiser gives as bytes (none does): the value is serialised whole
  if (found.some(({ memo }) => memo.checkpointText === undefined)) copy = value;
  const [type, bytes] = await serde.dumpsTyped(copy);
  if (type !== 'json') return { type, b64: Buffer.from(bytes).toString('base64') };
  const text = Buffer.from(bytes).toString('utf8');
  if (copy === value) return { type, text };
  return { type, text: text.replace(PLACEHOLDER, (_, i: string) => found[Number(i)].memo.checkpointText!) };
}

/** A stored value read back with the serialiser. */
export function deserialise(serde: Serde, value: Serialised): Promise<any> {
  return serde.loadsTyped(value.type, value.text ?? new Uint8Array(Buffer.from(value.b64 ?? '', 'base64')));
}

/**
 * The LangChain objects revived while reading many checkpoints at once (a page of a thread's
 * history), by their serialised text: every checkpoint of a thread holds its messages again,
 * and reviving a message (LangChain's `load`: its aliases, key mapping and constructor) costs
 * far more than reading its text. A message read again is the object revived for an earlier
 * checkpoint, as long as that object still holds the data it was revived with (its memo,
 * messageMemo.ts) and was not handed out for the same checkpoint already: each checkpoint's
 * state gets what deserialising it alone gives, its objects its own within it. Kept for one
 * read, not between reads: their objects are the readers' to use.
 */
export class RevivedObjects {
  private readonly byText = new Map<string, { object: object; memo: Memo; checkpoint: number }>();
  private checkpoint = 0;

  /** What is revived from now on belongs to another checkpoint. */
  nextCheckpoint(): void {
    this.checkpoint += 1;
  }

  /** The object revived earlier from `text`, unchanged and not yet handed out for this checkpoint. */
  reuse(text: string): object | undefined {
    const entry = this.byText.get(text);
    if (!entry || entry.checkpoint === this.checkpoint || memoOf(entry.object) !== entry.memo) return undefined;
    entry.checkpoint = this.checkpoint;
    return entry.object;
  }

  keep(text: string, object: unknown): void {
    if (object === null || typeof object !== 'object') return;
    const memo = memoOf(object);
    if (memo) this.byText.set(text, { object, memo, checkpoint: this.checkpoint });
  }
}

/** A serialised LangChain object (`{lc: 1, type: "constructor", id: [...]}`): what LangGraph's serialiser revives with LangChain's `load`. */
const isLangChainRecord = (record: Record<string, unknown>) => record.lc === 1 && record.type === 'constructor' && Array.isArray(record.id);

/** What LangGraph's serialiser writes for `undefined` (a ToolMessage's absent `artifact`, say), and nothing else. */
const isUndefinedRecord = (record: Record<string, unknown>) => record.lc === 2 && record.type === 'undefined' && Object.keys(record).length === 2;

type Slot = { parent: Record<string, unknown> | unknown[]; key: string | number };

/**
 * `deserialise`, with the LangChain objects in the value revived once per `revived` (see
 * RevivedObjects). The value's JSON is parsed as it is, each `undefined` record put back as
 * undefined and each LangChain object revived by the serialiser alone from the text of what
 * it holds: what the serialiser does inside the whole value (it revives from the innermost
 * values out, a LangChain object from the JSON text of what it revived inside it, where an
 * `undefined` is left out). A value with anything else the serialiser revives (its other
 * `lc: 2` records, a LangChain object inside another), or another serialiser, is
 * deserialised whole.
 */
export async function deserialiseSharing(serde: Serde, value: Serialised, revived: RevivedObjects): Promise<any> {
  if (value.type !== 'json' || value.text === undefined || serde.constructor !== (loadedSerdeClass ?? (await serdeClass()))) return deserialise(serde, value);
  const root: { value: unknown } = { value: JSON.parse(value.text) };
  const found: (Slot & { text: string })[] = [];
  if (!findLangChainObjects({ parent: root, key: 'value' }, found, 0, false)) return deserialise(serde, value);
  for (const { parent, key, text } of found) {
    let object = revived.reuse(text);
    if (!object) {
      object = await serde.loadsTyped('json', text);
      revived.keep(text, object);
    }
    (parent as Record<string | number, unknown>)[key] = object;
  }
  return root.value;
}

/**
 * Puts back the `undefined`s in the parsed JSON at `slot` and finds the LangChain objects in
 * it, each with its text (`inside` one, there is none to find); false when the value holds
 * anything else the serialiser would revive, or an own `__proto__` (its reviver would make
 * it a prototype), or is nested deeper than is worth walking.
 */
function findLangChainObjects({ parent, key }: Slot, found: (Slot & { text: string })[], depth: number, inside: boolean): boolean {
  const value = (parent as Record<string | number, unknown>)[key];
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (!findLangChainObjects({ parent: value, key: i }, found, depth + 1, inside)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, '__proto__')) return false;
  if (isUndefinedRecord(record)) {
    (parent as Record<string | number, unknown>)[key] = undefined;
    return true;
  }
  const isObject = isLangChainRecord(record);
  if (isObject && inside) return false;
  // `lc: 1` records other than constructors are kept as they are, as the serialiser keeps them
  if (record.lc !== undefined && record.lc !== 1) return false;
  for (const k in record) if (!findLangChainObjects({ parent: record, key: k }, found, depth + 1, inside || isObject)) return false;
  if (isObject) found.push({ parent, key, text: JSON.stringify(record) });
  return true;
}
