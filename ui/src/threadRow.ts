// One row of the Threads list, read from whatever the search gave for a thread. Every field is
// checked before it is used, so that one thread holding something odd (values that are no
// object, messages that are no list, a message that is no object) is shown with what can be
// read of it and marked, instead of the list failing for every thread.
// with its extension: the tests' compile (scripts/compileTests.ts) resolves no other import of ours
import { textOf, type Message } from './messageText.ts';

export interface ThreadRow {
  /** '' when the record carries none. */
  id: string;
  status: string;
  assistantId?: string;
  firstMessage: string;
  /** Undefined when the messages cannot be read. */
  messageCount?: number;
  metadata: string;
  updatedAt?: string;
  /** What about this thread could not be read; undefined when all of it could. */
  problem?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const FIRST_MESSAGE_CHARS = 80;

/** The messages in a thread's values, or why they cannot be read. */
export function messagesIn(values: unknown): { messages: Message[]; problem?: string } {
  if (values === undefined || values === null) return { messages: [] };
  if (!isRecord(values)) return { messages: [], problem: 'its values are not an object' };
  const messages = values.messages;
  if (messages === undefined || messages === null) return { messages: [] };
  if (!Array.isArray(messages)) return { messages: [], problem: 'its messages are not a list' };
  const readable = messages.filter(isRecord) as unknown as Message[];
  return readable.length === messages.length ? { messages: readable } : { messages: readable, problem: 'some of its messages are not objects' };
}

/** What the thread is about: its first message from the user (else its first), shortened. */
function firstMessageOf(messages: Message[]): string {
  const fromUser = (m: Message) => ['human', 'user'].includes(m.type) || ['human', 'user'].includes((m as { role?: unknown }).role as string);
  const first = messages.find(fromUser) ?? messages[0];
  const text = first ? textOf(first.content) : '';
  return text.length > FIRST_MESSAGE_CHARS ? `${text.slice(0, FIRST_MESSAGE_CHARS - 1)}…` : text;
}

const metadataText = (metadata: Record<string, unknown>) =>
  Object.entries(metadata)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');

export function threadRow(thread: unknown): ThreadRow {
  if (!isRecord(thread)) return { id: '', status: 'unknown', firstMessage: '', metadata: '', problem: 'the record is not an object' };
  const problems: string[] = [];
  const id = typeof thread.thread_id === 'string' ? thread.thread_id : '';
  if (!id) problems.push('it has no thread id');
  const status = typeof thread.status === 'string' ? thread.status : 'unknown';
  const metadata = isRecord(thread.metadata) ? thread.metadata : {};
  if (thread.metadata !== undefined && thread.metadata !== null && !isRecord(thread.metadata)) problems.push('its metadata is not an object');
  const { messages, problem } = messagesIn(thread.values);
  if (problem) problems.push(problem);
  return {
    id,
    status,
    assistantId: typeof metadata.assistant_id === 'string' ? metadata.assistant_id : undefined,
    firstMessage: firstMessageOf(messages),
    messageCount: problem ? undefined : messages.length,
    metadata: metadataText(metadata),
    updatedAt: typeof thread.updated_at === 'string' ? thread.updated_at : undefined,
    problem: problems.length ? problems.join('; ') : undefined,
  };
}
