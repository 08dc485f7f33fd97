// The data of a protocol run's `values` event as JSON text, written from the graph's values (issue
// 87). The event carries every message of the state, at every step, to every subscriber: made the
// long way each message is copied from its memo (messages.ts' fromLangChain, a WeakMap entry a
// copy), reshaped for the protocol (stateMessages.ts) and written key by key, run after run, for
// messages that have not changed. Here each unchanged message's protocol text is made once and
// kept on its memo.
import { isPlainObject } from '../messages/messageMemo.ts';
import { serialiseValues, wireMemo } from '../messages/messages.ts';
import { wireJson } from '../messages/wireJson.ts';
import { isMessage, protocolState, stateMessage } from './stateMessages.ts';

export interface ValuesText {
  /** wireJson(protocolState(serialiseValues(values))). */
  text: string;
  /** How many keys the protocol's state has (none: nothing is sent). */
  keys: number;
}

/**
 * The protocol state of the graph's `values` as JSON text, exactly as
 * wireJson(protocolState(serialiseValues(values))) writes it; undefined where this way does not
 * apply (the caller takes the long one): values that are not a plain object with a `messages`
 * list of LangChain messages whose data can be memoised, or with an own `__proto__` key.
 */
export function protocolValuesText(values: unknown): ValuesText | undefined {
  if (values === null || typeof values !== 'object' || Array.isArray(values) || !isPlainObject(values)) return undefined;
  const state = values as Record<string, unknown>;
  if (!Array.isArray(state.messages)) return undefined;
  let text = '{';
  let first = true;
  let keys = 0;
  for (const key of Object.keys(state)) {
    if (key === '__interrupt__') continue;
    if (key === '__proto__') return undefined;
    keys += 1;
    const part = key === 'messages' ? messagesText(state.messages) : wireJson(protocolState(serialiseValues(state[key])));
    if (key === 'messages' && part === undefined) return undefined;
    if (part === undefined) continue;
    text += (first ? '' : ',') + JSON.stringify(key) + ':' + part;
    first = false;
  }
  return { text: text + '}', keys };
}

/** The state's messages as the protocol writes them, each unchanged one's text made once. */
function messagesText(list: unknown[]): string | undefined {
  let text = '[';
  for (let i = 0; i < list.length; i += 1) {
    const item = list[i] as { _getType?: unknown } | null;
    if (item === null || typeof item !== 'object' || typeof item._getType !== 'function') return undefined;
    const memo = wireMemo(item);
    if (!memo || !isMessage(memo.wire)) return undefined;
    text += (i ? ',' : '') + (memo.protocolText ??= JSON.stringify(stateMessage(memo.wire)));
  }
  return text + ']';
}
