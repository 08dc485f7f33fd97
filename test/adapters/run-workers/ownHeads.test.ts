// Which run worker holds a thread's newest checkpoint itself (ownHeads.ts): the one whose run of
// the thread ended well after its own write was the thread's last, while nothing wrote it since.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwnHeads } from '../../../src/adapters/run-workers/ownHeads.ts';

function heads(limit?: number) {
  const marks = new Map<string, number>();
  let n = 0;
  const write = (thread: string) => marks.set(thread, ++n).get(thread)!;
  return { own: new OwnHeads((thread) => marks.get(thread), limit), write, marks };
}

test("a worker holds the thread's newest checkpoint once its run ended well after its own write, until anything writes the thread", () => {
  const { own, write } = heads();
  own.wrote('t', 1, write('t'));
  assert.equal(own.holds('t', 1), false, 'not before the run ended');
  own.ended('t', 1, true);
  assert.equal(own.holds('t', 1), true);
  assert.equal(own.holds('t', 2), false, 'another worker does not');
  assert.equal(own.holds('u', 1), false, 'nor does it hold another thread');
  write('t'); // the main thread (an update of the state, a delete)
  assert.equal(own.holds('t', 1), false);
});

test('a run that ended otherwise, or after a write not its own, leaves no worker holding the thread', () => {
  const { own, write } = heads();
  own.wrote('t', 1, write('t'));
  own.ended('t', 1, true);
  own.wrote('t', 1, write('t'));
  own.ended('t', 1, false);
  assert.equal(own.holds('t', 1), false, 'a failed run');
  own.wrote('t', 1, write('t'));
  write('t');
  own.ended('t', 1, true);
  assert.equal(own.holds('t', 1), false, 'written by something else between its last write and its end');
  own.wrote('t', 2, write('t'));
  own.ended('t', 1, true);
  assert.equal(own.holds('t', 1), false, "the last write was another worker's");
  own.wrote('t', 3, undefined);
  own.ended('t', 3, true);
  assert.equal(own.holds('t', 3), false, 'a write that left no mark (the store marks it no longer)');
});

test('a bounded number of threads is remembered, the oldest let go first', () => {
  const { own, write } = heads(2);
  for (const thread of ['a', 'b', 'c']) {
    own.wrote(thread, 1, write(thread));
    own.ended(thread, 1, true);
  }
  assert.deepEqual(
    ['a', 'b', 'c'].map((thread) => own.holds(thread, 1)),
    [false, true, true],
  );
});
