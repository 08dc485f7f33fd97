// Messages of a thread, as LangGraph stores them (type/content/tool_calls), shown as a chat.
import { textOf, type Message } from './messageText';

export { textOf, type Message };

const WHO: Record<string, string> = { human: 'You', user: 'You', ai: 'Assistant', AIMessageChunk: 'Assistant', tool: 'Tool', system: 'System' };

export function MessageList({ messages, label = 'Messages' }: { messages: Message[]; label?: string }) {
  if (messages.length === 0) return <p class="muted">No messages.</p>;
  return (
    <ol class="messages" aria-label={label}>
      {messages.map((m, i) => (
        <li key={m.id ?? i} class={`message message-${WHO[m.type] === 'You' ? 'user' : m.type === 'tool' ? 'tool' : 'ai'}`}>
          <span class="who">
            {WHO[m.type] ?? m.type}
            {m.type === 'tool' && m.name ? ` (${m.name})` : ''}
          </span>
          {textOf(m.content) && <div class="content">{textOf(m.content)}</div>}
          {m.tool_calls?.map((call) => (
            <div class="tool-call" key={call.id}>
              calls <code>{call.name}</code> with <code>{JSON.stringify(call.args)}</code>
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}

/**
 * Folds a streamed message into the list. `append`: the message is a chunk whose content
 * continues the message with its id (a later event for an id already streamed in this run).
 */
export function upsertMessage(list: Message[], incoming: Message, append: boolean): Message[] {
  const index = incoming.id ? list.findIndex((m) => m.id === incoming.id) : -1;
  if (index < 0) return [...list, incoming];
  const current = list[index];
  const next = append ? { ...current, ...incoming, content: textOf(current.content) + textOf(incoming.content) } : incoming;
  return [...list.slice(0, index), next, ...list.slice(index + 1)];
}
