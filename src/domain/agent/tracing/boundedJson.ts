// A node's input and output as a bounded JSON text for its span (`input.value`,
// `output.value`). A node's input is its thread's whole state, so the walk never visits all of
// it: an array keeps its newest items (a message list grows at its end), an object its first
// keys, a string its head, and a message is written as the GenAI conventions write one (role
// and parts), not as LangChain's serialised constructor call.
import type { BaseMessage } from '@langchain/core/messages';
import { cut, genAiMessage, MAX_MESSAGES_CHARS } from './genAiMessages.ts';

const MAX_ITEMS = 20;
const MAX_KEYS = 50;
const MAX_STRING = 2000;
const MAX_DEPTH = 6;

const isMessage = (value: object): value is BaseMessage => typeof (value as { getType?: unknown }).getType === 'function' && 'content' in value;

function bounded(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cut(value, MAX_STRING);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : value;
  if (isMessage(value)) return genAiMessage(value);
  if (depth === 0) return '…';
  if (Array.isArray(value)) {
    const kept = value.slice(-MAX_ITEMS).map((item) => bounded(item, depth - 1));
    return value.length > MAX_ITEMS ? [`… ${value.length - MAX_ITEMS} earlier`, ...kept] : kept;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return bounded((value as { toJSON: () => unknown }).toJSON(), depth - 1);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).slice(0, MAX_KEYS)) out[key] = bounded((value as Record<string, unknown>)[key], depth - 1);
  return out;
}

/** The JSON text of `value`, bounded in size (an attribute too long after the walk is cut). */
export function boundedJson(value: unknown): string {
  try {
    return cut(JSON.stringify(bounded(value, MAX_DEPTH)) ?? 'null', MAX_MESSAGES_CHARS);
  } catch {
    return '"(not JSON)"';
  }
}
