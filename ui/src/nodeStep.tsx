// What a node did from a checkpoint, as Studio shows a node's step: the state it read (the
// checkpoint's values), the update it returned (its task's result, kept with the checkpoint)
// and the difference the update made to the state, key by key (a list such as `messages` by item).
// Where the checkpoint after is an edit of the state (updateState), the edit is what is shown.
import type { ThreadState } from '@langchain/langgraph-sdk';
import { Raw } from './components';
import { brief, stateDiff, type Values } from './stateDiff';

/** How a checkpoint came to be (its metadata's `source`): `update` is a state edit (updateState), not a node's step. */
const sourceOf = (state: ThreadState) => (state.metadata as { source?: unknown } | null)?.source;

/**
 * The step from a checkpoint: the nodes it had next ran on its values (their input), each
 * returned its task's `result` (their update), and the next checkpoint holds what that made
 * of the state. `child`: the checkpoint after it (the newest, where it was forked).
 */
export function NodeStep({ entry, child }: { entry: ThreadState; child: ThreadState | undefined }) {
  const ran = (entry.tasks ?? []).filter((t) => t.result !== undefined && t.result !== null && !t.name.startsWith('__'));
  // the checkpoint after is an edit of the state made here ("Edit state here"), not the step of the node next
  const edit = child !== undefined && sourceOf(child) === 'update';
  if (!child || (!edit && !ran.length)) return null;
  const changes = stateDiff((entry.values ?? {}) as Values, (child.values ?? {}) as Values);
  const names = ran.map((t) => t.name);
  const writes = ((child.metadata as { writes?: Record<string, unknown> } | null)?.writes ?? {}) as Record<string, unknown>;
  const asNodes = Object.keys(writes);
  return (
    <div class="node-step" role="region" aria-label={edit ? 'What the edit did' : 'What the node did'}>
      {edit ? (
        <h4>
          Edit of the state{asNodes.length ? ' as ' : ''}
          {asNodes.length ? <code>{asNodes.join(', ')}</code> : null}
        </h4>
      ) : (
        <h4>
          {names.length === 1 ? 'Node' : 'Nodes'} <code>{names.join(', ')}</code>
        </h4>
      )}
      <Raw value={entry.values} label={edit ? 'Before: the state here' : 'Input: the state it read'} />
      {edit ? (
        // the checkpoint's metadata names what the edit wrote when LangGraph keeps it; the diff says it either way
        asNodes.length > 0 && <Raw value={asNodes.length === 1 ? writes[asNodes[0]] : writes} label="Update: what the edit wrote" />
      ) : (
        <Raw value={ran.length === 1 ? ran[0].result : Object.fromEntries(ran.map((t) => [t.name, t.result]))} label="Update: what it returned" />
      )}
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
