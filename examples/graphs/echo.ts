// The `echo` graph: a plain async function over the thread's state. Each new user message
// gets one AI message repeating its text. No network, no model.
import type { PlainGraphContext } from '../../src/domain/agent/graphs/graphs.ts';

interface Message {
  type: string;
  content: unknown;
  id?: string;
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((block) => (typeof block === 'string' ? block : typeof block?.text === 'string' ? block.text : '')).join('');
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

export async function echo(state: { messages?: Message[] }, context?: PlainGraphContext) {
  const messages = state.messages ?? [];
  // the user messages since the last reply are the ones this run answers
  let first = messages.length;
  while (first > 0 && messages[first - 1].type === 'human') first -= 1;
  // a progress note for clients that stream the `custom` mode
  context?.emit({ echoing: messages.length - first });
  return { messages: messages.slice(first).map((m) => ({ type: 'ai', content: textOf(m.content) })) };
}
