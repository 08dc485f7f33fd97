// LangChain messages with what makes serialising them hard: quotes, escapes, a NUL, non-ASCII
// and astral characters, nested tool-call arguments, an undefined inside a dict, content blocks.
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

export function conversation() {
  return [
    new HumanMessage({ content: 'hello "quoted" \\ \u0000 é 😀\nnext line', id: 'h1' }),
    new AIMessage({
      content: 'calling',
      id: 'a1',
      tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x', nested: { deep: [1, null, 'y'] } } }],
      additional_kwargs: { extra: { undefinedInside: undefined } },
    }),
    new ToolMessage({ content: 'result', tool_call_id: 'c1', id: 't1' }),
    new AIMessage({ content: [{ type: 'text', text: 'blocks' }], id: 'a2', response_metadata: { model: 'm' } }),
  ];
}
