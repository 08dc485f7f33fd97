// A message as LangGraph stores it in a thread's values, and its text: plain TypeScript, no
// components, so that pages and their tests read it alike.
export interface Message {
  id?: string;
  type: string;
  content: unknown;
  name?: string;
  tool_calls?: { name: string; args: unknown; id?: string }[];
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b === 'string' ? b : typeof b?.text === 'string' ? b.text : '')).join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}
