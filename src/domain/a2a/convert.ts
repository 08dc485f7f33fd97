// Translation between A2A messages and the agent server's graph input and thread state.
// Pure functions: no service calls, so the mapping rules are testable on their own.
import type { Message as A2AMessage, FilePart, Part, TaskState } from '../../../generated/a2a/types.gen.ts';
import type { Message as GraphMessage, RunStatus } from '../../../generated/agent-server/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { filePartsOf, fromContentBlock, toContentBlock } from './fileParts.ts';

/**
 * Builds the run input of one A2A message: its text and file parts become one input message
 * carrying the client's `messageId` as its id (one text part as a string; several parts, or any
 * file, as content blocks in the parts' order, a file as LangChain's standard block), so the
 * task's history gives the message back as it was sent; data parts are merged into the input.
 */
export function toRunInput(message: A2AMessage, hasMessages: boolean): Outcome<Record<string, unknown>, 'invalid'> {
  const content: unknown[] = [];
  for (const [index, part] of message.parts.entries()) {
    if (part.kind === 'text') content.push({ type: 'text', text: part.text });
    if (part.kind !== 'file') continue;
    const block = toContentBlock(part, `message.parts[${index}]`);
    if (!block.ok) return block;
    content.push(block.value);
  }
  if (content.length > 0 && !hasMessages) {
    return fail('invalid', "This assistant's graph state has no 'messages' key, so it cannot take text or file parts. Send the input as a data part instead.");
  }
  let input: Record<string, unknown> = {};
  for (const part of message.parts) {
    if (part.kind !== 'data') continue;
    // only an object merges into the input (a v1.0 data part may hold any JSON value)
    if (!part.data || typeof part.data !== 'object' || Array.isArray(part.data))
      return fail('invalid', 'A data part must hold a JSON object: it is merged into the graph input.');
    input = { ...input, ...part.data };
  }
  if (content.length > 0) {
    const role = message.role === 'agent' ? 'assistant' : 'human';
    const given = Array.isArray(input.messages) ? input.messages : [];
    const only = content.length === 1 ? (content[0] as { type: string; text?: string }) : undefined;
    input = { ...input, messages: [...given, { role, content: only?.type === 'text' ? only.text : content, id: message.messageId }] };
  }
  return ok(input);
}

/**
 * The run that answers a task waiting at an interrupt: a pending interrupt() gets the
 * message as its value (a data part's value as it is, else the text), a breakpoint is simply
 * continued (no input).
 */
export function resumeCommand(
  message: A2AMessage,
  pending: boolean,
): Outcome<{ command?: { resume: Record<string, unknown> }; input?: null }, 'unsupported_media'> {
  // an interrupt's value is JSON the graph reads back; a file has no agreed place in it
  if (message.parts.some((p) => p.kind === 'file')) return fail('unsupported_media', 'File parts cannot answer an interrupt: send text or data parts.');
  if (!pending) return ok({ input: null });
  const data = message.parts.find((p): p is Extract<Part, { kind: 'data' }> => p.kind === 'data');
  const text = message.parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
  // any JSON value is a resume value; the generated type names it an object
  return ok({ command: { resume: (data ? data.data : text) as Record<string, unknown> } });
}

/** The plain text of a LangChain message's content (a string, or a list of blocks). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      typeof block === 'string'
        ? block
        : block && typeof block === 'object' && (block as { type?: unknown }).type === 'text'
          ? String((block as { text?: unknown }).text ?? '')
          : '',
    )
    .join('');
}

const messageType = (m: unknown): string | undefined => {
  if (!m || typeof m !== 'object') return undefined;
  const { type, role } = m as { type?: unknown; role?: unknown };
  const t = typeof type === 'string' ? type : typeof role === 'string' ? role : undefined;
  if (t === 'user') return 'human';
  if (t === 'assistant' || t === 'AIMessageChunk') return 'ai';
  return t;
};

/**
 * The reply of the latest turn: the text, files and message id of the last AI message with
 * text or files after the last human message, so a turn that produced neither does not repeat
 * the previous turn's answer.
 */
export function latestReply(messages: unknown): { text: string; files: FilePart[]; id: string | null } | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const type = messageType(messages[i]);
    if (type === 'human') return null;
    if (type === 'ai') {
      const { content, id } = messages[i] as GraphMessage;
      const text = textOf(content);
      const files = filePartsOf(content);
      if (text || files.length > 0) return { text, files, id: typeof id === 'string' && id ? id : null };
    }
  }
  return null;
}

export const replyText = (messages: unknown): string | null => latestReply(messages)?.text || null;

/** A message's parts: one per text block and file block of a block list that has several or a file, else one text part. */
function contentParts(content: unknown): Part[] {
  if (Array.isArray(content) && content.length > 1 && content.every((b) => b && typeof b === 'object' && (b as { type?: unknown }).type === 'text')) {
    return content.map((b) => ({ kind: 'text' as const, text: String((b as { text?: unknown }).text ?? '') }));
  }
  if (filePartsOf(content).length === 0) return [{ kind: 'text', text: textOf(content) }];
  const parts: Part[] = [];
  for (const block of content as unknown[]) {
    const file = fromContentBlock(block);
    if (file) parts.push(file);
    else if (typeof block === 'string' || (block as { type?: unknown })?.type === 'text') parts.push({ kind: 'text', text: textOf([block]) });
  }
  return parts;
}

/** Thread messages as A2A history: human → user, everything else with text or files → agent. */
export function toA2AHistory(messages: unknown, ids: { contextId: string; taskId: string }): A2AMessage[] {
  if (!Array.isArray(messages)) return [];
  const history: A2AMessage[] = [];
  messages.forEach((m, index) => {
    const content = (m as GraphMessage | undefined)?.content;
    if (!textOf(content) && filePartsOf(content).length === 0) return;
    const id = (m as GraphMessage).id;
    history.push({
      kind: 'message',
      messageId: typeof id === 'string' && id ? id : `${ids.contextId}-${index}`,
      role: messageType(m) === 'human' ? 'user' : 'agent',
      parts: contentParts(content) as A2AMessage['parts'],
      contextId: ids.contextId,
      taskId: ids.taskId,
    });
  });
  return history;
}

/** The last `length` entries (all when undefined, none for 0). */
export function lastN<T>(items: T[], length: number | undefined): T[] {
  if (length === undefined) return items;
  return length <= 0 ? [] : items.slice(-length);
}

/**
 * A2A task state of a run. `interrupted` means the run was aborted: canceled when this task
 * asked for it, otherwise (another client's cancel, an interrupting run) input-required as
 * upstream does. A run that ended normally while its graph waits at an interrupt is
 * input-required too.
 */
export function taskState(status: RunStatus, opts: { canceled: boolean; awaitingInput: boolean }): TaskState {
  switch (status) {
    case 'pending':
      return 'submitted';
    case 'running':
      return 'working';
    case 'success':
      return opts.awaitingInput ? 'input-required' : 'completed';
    case 'interrupted':
      return opts.canceled ? 'canceled' : 'input-required';
    case 'error':
    case 'timeout':
      return 'failed';
    default:
      return 'unknown';
  }
}

const TERMINAL: ReadonlySet<TaskState> = new Set(['completed', 'canceled', 'failed', 'rejected']);
export const isTerminal = (state: TaskState): boolean => TERMINAL.has(state);
