// LangChain messages as the OpenTelemetry GenAI conventions write a model call's messages
// (`gen_ai.input.messages`, `gen_ai.output.messages`): each message a role and a list of
// parts, a text part, a `tool_call` part (id, name, arguments) per tool call the model asked
// for and a `tool_call_response` part (id, response) for a tool's answer. The attribute is a
// JSON text; a long conversation keeps its newest messages that fit (whole, so the text stays
// JSON) and a long part is cut.
import type { BaseMessage } from '@langchain/core/messages';

/** The most characters of one message part's text, and of a whole attribute. */
export const MAX_PART_CHARS = 4000;
export const MAX_MESSAGES_CHARS = 16000;

type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id?: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id?: string; response: unknown };

export interface GenAiMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

export const cut = (text: string, max = MAX_PART_CHARS) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** LangChain's message types → the conventions' roles. */
const ROLES: Record<string, string> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool', developer: 'system', generic: 'user' };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((block) => (typeof block === 'string' ? block : (block as { text?: unknown })?.text))
      .filter((text): text is string => typeof text === 'string')
      .join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** One message in the conventions' shape. */
export function genAiMessage(message: BaseMessage): GenAiMessage {
  const type = message.getType();
  const text = textOf(message.content);
  if (type === 'tool') {
    const id = (message as unknown as { tool_call_id?: string }).tool_call_id;
    return { role: 'tool', parts: [{ type: 'tool_call_response', id, response: cut(text) }] };
  }
  const parts: Part[] = text ? [{ type: 'text', content: cut(text) }] : [];
  const calls = (message as unknown as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> }).tool_calls ?? [];
  for (const call of calls) parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.args });
  return { role: ROLES[type] ?? type, parts };
}

/** The JSON text of `messages`: the newest of them that fit in MAX_MESSAGES_CHARS (at least one). */
export function messagesJson(messages: GenAiMessage[]): string {
  const kept: string[] = [];
  let length = 2;
  for (let i = messages.length - 1; i >= 0; i--) {
    const json = JSON.stringify(messages[i]);
    if (kept.length > 0 && length + json.length + 1 > MAX_MESSAGES_CHARS) break;
    kept.unshift(json);
    length += json.length + 1;
  }
  return `[${kept.join(',')}]`;
}
