// What a node did from a checkpoint, as Studio shows a node's step: the state it read (the
// checkpoint's values), the update it returned (its task's result, kept with the checkpoint)
// and the difference the update made to the state, key by key (a list such as `messages` by item).
import type { ThreadState } from '@langchain/langgraph-sdk';
import { Raw } from './components';

type Values = Record<string, unknown>;

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

/** A value short enough for one line: a message as who and what it says. */
function brief(value: unknown): string {
  const m = value as { type?: string; content?: unknown } | null;
  if (m && typeof m === 'object' && typeof m.type === 'string' && 'content' in m)
    return `${m.type}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`;
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * The step from a checkpoint: the nodes it had next ran on its values (their input), each
 * returned its task's `result` (their update), and the next checkpoint holds what that made
 * of the state. `child`: the checkpoint after it (the newest, where it was forked).
 */
export function NodeStep({ entry, child }: { entry: ThreadState; child: ThreadState | undefined }) {
  const ran = (entry.tasks ?? []).filter((t) => t.result !== undefined && t.result !== null && !t.name.startsWith('__'));
  if (!ran.length || !child) return null;
  const changes = stateDiff((entry.values ?? {}) as Values, (child.values ?? {}) as Values);
  const names = ran.map((t) => t.name);
  return (
    <div class="node-step" role="region" aria-label="What the node did">
      <h4>
        {names.length === 1 ? 'Node' : 'Nodes'} <code>{names.join(', ')}</code>
      </h4>
      <Raw value={entry.values} label="Input: the state it read" />
      <Raw value={ran.length === 1 ? ran[0].result : Object.fromEntries(ran.map((t) => [t.name, t.result]))} label="Update: what it returned" />
      <p class="muted">State diff</p>
      {changes.length === 0 ? (
        <p class="muted">The update changed nothing.</p>
      ) : (
        <ul class="diff" aria-label="State diff">
          {changes.map((c, n) => (
            <li key={n} class={c.kind}>
              {c.kind === 'added' ? '+ ' : c.kind === 'removed' ? '− ' : '~ '}
              <strong>{c.key}</strong> {c.kind === 'changed' ? `${brief(c.before)} → ${brief(c.after)}` : brief(c.kind === 'added' ? c.after : c.before)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
