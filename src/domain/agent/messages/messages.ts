// LangGraph message objects on the wire: `{type, content, id, ...}`. Inputs may use the
// OpenAI-style `{role, content}`; LangChain message instances are turned into the same dicts.
import { randomUUID } from 'node:crypto';
import { copyWith } from '../../copyWith.ts';
import { memoOf, type Memo } from './messageMemo.ts';

export interface MessageDict {
  type: string;
  content: unknown;
  /** Absent only for a LangChain message that has none (see dictOf). */
  id?: string;
  [key: string]: unknown;
}

const TYPE_BY_ROLE: Record<string, string> = {
  user: 'human',
  human: 'human',
  assistant: 'ai',
  ai: 'ai',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
  remove: 'remove',
};

const CHUNK_TYPES: Record<string, string> = { AIMessageChunk: 'ai', HumanMessageChunk: 'human', ToolMessageChunk: 'tool', SystemMessageChunk: 'system' };

/** Turns a message-like value (dict, string, LangChain message) into a message dict; `id` is the one it gets when it has none. */
export function toMessageDict(value: unknown, defaultType = 'human', id?: string): MessageDict {
  if (typeof value === 'string') return { type: defaultType, content: value, id: id ?? randomUUID() };
  if (value && typeof value === 'object') {
    const m = value as Record<string, any>;
    if (typeof m._getType === 'function' || (m.lc_serializable !== undefined && 'content' in m)) return fromLangChain(m);
    const { role, type, id: own, ...rest } = m;
    const kind = TYPE_BY_ROLE[String(type ?? role ?? defaultType)] ?? CHUNK_TYPES[String(type)] ?? String(type ?? role ?? defaultType);
    const dict: MessageDict = copyWith(rest, { type: kind, content: m.content ?? '', id: typeof own === 'string' && own ? own : (id ?? randomUUID()) });
    return kind === 'remove' ? dict : withMessageDefaults(dict);
  }
  return withMessageDefaults({ type: defaultType, content: String(value), id: id ?? randomUUID() });
}

/**
 * The keys every message of that type has once LangChain made it (what a LangGraph graph
 * stores for a `{role, content}` input), so a plain-function graph's messages have them too.
 */
function withMessageDefaults(dict: MessageDict): MessageDict {
  const out: MessageDict = copyWith({ additional_kwargs: {}, response_metadata: {} }, dict);
  if (out.type === 'ai') {
    out.tool_calls ??= [];
    out.invalid_tool_calls ??= [];
  }
  return out;
}

/**
 * A LangChain message as upstream's server writes it: its `toDict()` data with its type. Made
 * once per message while it is unchanged (messageMemo.ts): a `values` event carries every
 * message of the state. Each caller gets a copy of its own.
 */
function fromLangChain(m: Record<string, any>): MessageDict {
  const memo = memoOf(m);
  if (!memo) return dictOf(m);
  memo.wire ??= dictOf(m);
  const copy = copyWith(memo.wire as MessageDict, {}) as MessageDict;
  copiesOfWire.set(copy, memo);
  return copy;
}

/**
 * The JSON text of a LangChain message's wire dict (what fromLangChain gives, written out),
 * made once while the message is unchanged; undefined when its data cannot be memoised.
 */
export function messageWireText(m: object): string | undefined {
  const memo = memoOf(m);
  if (!memo) return undefined;
  memo.wire ??= dictOf(m as Record<string, any>);
  return (memo.wireText ??= JSON.stringify(memo.wire));
}

/**
 * The memo of a LangChain message with its wire dict made (what fromLangChain copies), for a
 * caller that only reads it; undefined when the message's data cannot be memoised.
 */
export function wireMemo(m: object): (Memo & { wire: MessageDict }) | undefined {
  const memo = memoOf(m);
  if (!memo) return undefined;
  memo.wire ??= dictOf(m as Record<string, any>);
  return memo as Memo & { wire: MessageDict };
}

/** The dicts fromLangChain gave out, with the memo each is a copy of. */
const copiesOfWire = new WeakMap<object, Memo>();

/**
 * The memo whose wire dict `dict` is a copy of, while the copy still holds what it was given
 * (a caller may have set or replaced a key of its own copy since); undefined for any other object.
 */
export function wireMemoOf(dict: object): Memo | undefined {
  const memo = copiesOfWire.get(dict);
  if (!memo) return undefined;
  const wire = memo.wire as Record<string, unknown>;
  const keys = Object.keys(dict);
  if (keys.length !== Object.keys(wire).length) return undefined;
  for (const key of keys) if ((dict as Record<string, unknown>)[key] !== wire[key] || !Object.hasOwn(wire, key)) return undefined;
  return memo;
}

/**
 * A message without an id (a node's return value as its task's write keeps it: LangGraph's
 * reducer names messages only as it adds them to the state) is written without one, as
 * upstream writes it: an id made up here would be another one at every read.
 */
function dictOf(m: Record<string, any>): MessageDict {
  if (typeof m.toDict === 'function') {
    const { type, data } = m.toDict() as { type: string; data: Record<string, unknown> };
    const { id, ...rest } = data;
    return copyWith(rest, { type, content: data.content, ...(typeof id === 'string' && id ? { id } : {}) }) as MessageDict;
  }
  const { id, ...rest } = m;
  const type = typeof m._getType === 'function' ? m._getType() : m.type;
  return withMessageDefaults(copyWith(rest, { type, content: m.content, ...(typeof id === 'string' && id ? { id } : {}) }) as MessageDict);
}

/**
 * The `add_messages` reducer over dicts: a message whose id is already present replaces it,
 * `{type: "remove", id}` deletes it, anything else is appended.
 */
export function addMessages(current: readonly MessageDict[], update: unknown): MessageDict[] {
  // as LangGraph's reducer, a message gets its id as it is added
  const incoming = (Array.isArray(update) ? update : [update]).map((m): MessageDict & { id: string } => {
    const dict = toMessageDict(m);
    return { ...dict, id: dict.id || randomUUID() };
  });
  const next = [...current];
  const position = new Map(next.map((m, i) => [m.id, i]));
  const removed = new Set<string>();
  for (const message of incoming) {
    if (message.type === 'remove') {
      removed.add(message.id);
      continue;
    }
    const at = position.get(message.id);
    if (at !== undefined) next[at] = message;
    else {
      position.set(message.id, next.length);
      next.push(message);
    }
  }
  return removed.size ? next.filter((m) => !m.id || !removed.has(m.id)) : next;
}

/**
 * Serialises graph values for the wire: LangChain messages become dicts, recursively. A
 * streamed chunk is typed as its message (`ai`), as upstream's JS server writes it (its
 * `toDict()` type).
 */
export function serialiseValues(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const v = value as Record<string, any>;
  if (typeof v._getType === 'function') return fromLangChain(v);
  if (value instanceof Error) return { error: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((item) => serialiseValues(item));
  if (typeof v.toJSON === 'function' && !(value.constructor === Object)) return serialiseValues(v.toJSON());
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(v)) {
    // an own "__proto__" stays a property (assigning it would set the copy's prototype)
    if (key === '__proto__') Object.defineProperty(out, key, { value: serialiseValues(item), enumerable: true, writable: true, configurable: true });
    else out[key] = serialiseValues(item);
  }
  return out;
}
