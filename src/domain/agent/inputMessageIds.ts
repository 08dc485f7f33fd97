// The ids of a run's input messages are chosen once, when the run is stored: an input message
// without an id would otherwise get a new one each time the run executes, so a run retried
// after a takeover (or a restart) would write, and stream, the same messages under other ids
// than its first attempt did. The ids live on the run's record (RunRecord.input_message_ids),
// not in its kwargs: the run's input is answered as the client sent it, as upstream's is.
import { uuid4 } from './ids.ts';

/** The input's messages (`input.messages`, one or a list), as the runners read them. */
function inputMessages(input: unknown): unknown[] | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const { messages } = input as Record<string, unknown>;
  if (messages === undefined) return undefined;
  return Array.isArray(messages) ? messages : [messages];
}

/** A message's own id, when it names one. */
function ownId(message: unknown): string | undefined {
  const id = message !== null && typeof message === 'object' ? (message as Record<string, unknown>).id : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

/** One id per input message, in order: its own, or a new one; undefined when the input has no messages. */
export function assignInputMessageIds(input: unknown): string[] | undefined {
  const messages = inputMessages(input);
  return messages?.length ? messages.map((m) => ownId(m) ?? uuid4()) : undefined;
}

/**
 * The input with each message object that has no id given the one chosen for it. A message
 * given as text stays text (a LangGraph graph's channel may hold text): the plain runner reads
 * the ids itself (normaliseInput).
 */
export function withInputMessageIds<T>(input: T, ids: readonly string[] | undefined): T {
  const messages = inputMessages(input);
  if (!ids || !messages) return input;
  const given = messages.map((m, i) =>
    m !== null && typeof m === 'object' && !Array.isArray(m) && !ownId(m) && ids[i] ? { ...(m as Record<string, unknown>), id: ids[i] } : m,
  );
  const { messages: original } = input as Record<string, unknown>;
  return { ...(input as Record<string, unknown>), messages: Array.isArray(original) ? given : given[0] } as T;
}
