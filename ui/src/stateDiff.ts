// The difference between two states of a thread, key by key, and each change in one line (a
// node's step, an edit): plain TypeScript, no components, so that the page and its tests read it alike.
export type Values = Record<string, unknown>;

export interface Change {
  key: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The changes from `before` to `after`, key by key; a list's items added and removed are told one by one. */
export function stateDiff(before: Values, after: Values): Change[] {
  const changes: Change[] = [];
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])]) {
    const [b, a] = [before[key], after[key]];
    if (same(b, a)) continue;
    if (!(key in before)) changes.push({ key, kind: 'added', after: a });
    else if (!(key in after)) changes.push({ key, kind: 'removed', before: b });
    else if (Array.isArray(b) && Array.isArray(a)) {
      const had = new Set(b.map((item) => JSON.stringify(item)));
      const has = new Set(a.map((item) => JSON.stringify(item)));
      for (const item of b) if (!has.has(JSON.stringify(item))) changes.push({ key, kind: 'removed', before: item });
      for (const item of a) if (!had.has(JSON.stringify(item))) changes.push({ key, kind: 'added', after: item });
    } else changes.push({ key, kind: 'changed', before: b, after: a });
  }
  return changes;
}

const short = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

/**
 * A value short enough for one line: a message as who and what it says, and the tools it calls
 * by name and arguments (an AI message that only calls tools has no text: it read `ai:` alone).
 */
export function brief(value: unknown): string {
  const m = value as { type?: string; content?: unknown; tool_calls?: unknown } | null;
  if (m && typeof m === 'object' && typeof m.type === 'string' && 'content' in m) {
    const text = typeof m.content === 'string' ? m.content : m.content === undefined ? '' : JSON.stringify(m.content);
    const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []) as { name?: unknown; args?: unknown }[];
    const called = calls.map((c) => `${String(c?.name ?? '?')}(${JSON.stringify(c?.args ?? {})})`);
    return short(`${m.type}: ${[text, ...(called.length ? [`calls ${called.join(', ')}`] : [])].filter(Boolean).join(' ')}`);
  }
  return short(JSON.stringify(value));
}
