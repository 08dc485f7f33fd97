// The history's branch numbers (ui/src/branches.ts) stay with their checkpoints (issue 89): a
// fork, a re-run or an edit added later takes the next number, and no label already shown
// changes. They were numbered newest first, so every fork renumbered the branches before it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { branchesOf } from '../../ui/src/branches.ts';

/** A checkpoint of the history: its id, its parent's, and when it was made (minute `at`). */
const cp = (id: string, parent: string | null, at: number) => ({
  checkpoint: { checkpoint_id: id, thread_id: 't', checkpoint_ns: '', checkpoint_map: null },
  parent_checkpoint: parent ? { checkpoint_id: parent, thread_id: 't', checkpoint_ns: '', checkpoint_map: null } : null,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, at)).toISOString(),
});
/** Newest first, as the history is read. */
const history = (...entries: ReturnType<typeof cp>[]) => [...entries].sort((a, b) => b.created_at.localeCompare(a.created_at));
const labels = (entries: ReturnType<typeof cp>[]) => Object.fromEntries(branchesOf(entries).branch);

test('the first line is branch 1; a fork is branch 2 and branches off its parent', () => {
  const entries = history(cp('a', null, 0), cp('b', 'a', 1), cp('c', 'b', 2), cp('d', 'a', 3));
  assert.deepEqual(labels(entries), { a: 1, b: 1, c: 1, d: 2 });
  assert.deepEqual(Object.fromEntries(branchesOf(entries).branchesOff), { d: 'a' });
});

test('a branch added later takes the next number; the labels shown before stay', () => {
  const before = history(cp('a', null, 0), cp('b', 'a', 1), cp('c', 'b', 2), cp('d', 'a', 3), cp('e', 'd', 4));
  const shown = labels(before);
  // another fork from b, then the first line goes on from c: nothing shown before changes
  const after = history(...before, cp('f', 'b', 5), cp('g', 'c', 6));
  const now = labels(after);
  for (const [id, number] of Object.entries(shown)) assert.equal(now[id], number, `${id} kept its branch`);
  assert.equal(now.f, 3);
  assert.equal(now.g, 1, 'the first line going on stays branch 1');
});

test('a history cut short (its oldest checkpoints not read) still numbers what it has', () => {
  const entries = history(cp('c', 'b', 2), cp('d', 'c', 3), cp('e', 'c', 4));
  assert.deepEqual(labels(entries), { c: 1, d: 1, e: 2 });
});
