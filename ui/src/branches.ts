// A thread's history drawn as branches (the thread page's checkpoints list): plain TypeScript,
// no components, so that the page and its tests read it alike.
import type { ThreadState } from '@langchain/langgraph-sdk';

/**
 * Branches of a history (newest first), numbered so that a number stays with its checkpoints:
 * a checkpoint is on its parent's branch when it is the parent's first child, and starts a
 * new branch otherwise (a fork, a re-run, an edit); branches are numbered in the order they
 * started, the first line 1. A branch added later takes the next number, and no label
 * already shown changes (numbered newest first, every label moved down by one on each fork).
 */
export function branchesOf(entries: Pick<ThreadState, 'checkpoint' | 'parent_checkpoint' | 'created_at'>[]): {
  branch: Map<string, number>;
  branchesOff: Map<string, string>;
} {
  const idOf = (h: Pick<ThreadState, 'checkpoint'>) => h.checkpoint?.checkpoint_id ?? '';
  const parentOf = (h: Pick<ThreadState, 'parent_checkpoint'>) => h.parent_checkpoint?.checkpoint_id ?? '';
  // oldest first: by time, then by id (checkpoint ids grow with time)
  const oldestFirst = entries
    .filter((h) => idOf(h))
    .map((h, index) => ({ h, index }))
    .sort((a, b) => (a.h.created_at ?? '').localeCompare(b.h.created_at ?? '') || idOf(a.h).localeCompare(idOf(b.h)) || b.index - a.index)
    .map(({ h }) => h);
  const known = new Set(oldestFirst.map(idOf));
  const branch = new Map<string, number>();
  const branchesOff = new Map<string, string>();
  const firstChildSeen = new Set<string>();
  let next = 1;
  for (const h of oldestFirst) {
    const id = idOf(h);
    const parent = parentOf(h);
    if (parent && known.has(parent) && !firstChildSeen.has(parent)) {
      firstChildSeen.add(parent);
      branch.set(id, branch.get(parent) ?? next++);
      continue;
    }
    if (parent) firstChildSeen.add(parent);
    const number = next++;
    branch.set(id, number);
    // a later child of a checkpoint listed here branches off it
    if (parent && known.has(parent)) branchesOff.set(id, parent);
  }
  return { branch, branchesOff };
}
