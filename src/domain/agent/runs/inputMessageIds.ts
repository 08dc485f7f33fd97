// The ids of a plain-function run's input messages are chosen once, when the run is stored: an
// input message without an id would otherwise get a new one each time the run executes, and a
// plain run applies its input again on every attempt, so a run retried after a takeover (or a
// restart) wrote, and streamed, the same messages under other ids than its first attempt. The
// ids live on the run's record (RunRecord.input_message_ids), not in its kwargs: the run's input
// is answered as the client sent it, as upstream's is. A LangGraph run's input goes to LangGraph
// as sent, as upstream's does (its `__start__` task shows it so): a retried LangGraph run
// continues from the checkpoints its earlier attempt wrote, which hold the ids LangGraph gave.
import { uuid4 } from '../ids.ts';

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
