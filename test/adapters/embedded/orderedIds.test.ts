// An index's ordered set of ids: an id that leaves and comes back goes to the newest end, a walk
// sees each live id once in order, and a large set's lookups do not slow down for an id that
// comes and goes (issue 86).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { OrderedIds } from '../../../src/adapters/embedded/orderedIds.ts';
import { PackedIds } from '../../../src/adapters/embedded/packedIds.ts';

test('an id that leaves and comes back is at the newest end, once, in a large set as in a small one', () => {
  for (const count of [5, 100]) {
    const ids = new OrderedIds();
    for (let i = 0; i < count; i++) ids.add(`t${i}`);
    assert.equal(ids.delete('t1'), true);
    assert.equal(ids.delete('t1'), false);
    assert.equal(ids.has('t1'), false);
    assert.equal(ids.size, count - 1);
    ids.add('t1');
    ids.add('t1');
    assert.equal(ids.has('t1'), true);
    assert.equal(ids.size, count);
    const forward = [...ids.forward()];
    assert.equal(forward.length, count);
    assert.equal(forward.at(-1), 't1');
    assert.deepEqual([...ids.backward()], forward.reverse());
  }
});

test('deletions past the live ids are swept, and the set still answers every id rightly', () => {
  const ids = new OrderedIds();
  for (let i = 0; i < 200; i++) ids.add(`t${i}`);
  for (let i = 0; i < 150; i++) ids.delete(`t${i}`);
  for (let round = 0; round < 300; round++) {
    ids.delete('t199');
    ids.add('t199');
  }
  assert.equal(ids.size, 50);
  assert.deepEqual([...ids.forward()], [...Array.from({ length: 49 }, (_, i) => `t${150 + i}`), 't199']);
  for (let i = 0; i < 150; i++) assert.equal(ids.has(`t${i}`), false);
});

test('an id that leaves and comes back again and again costs about the same among 20,000 ids as among 100', () => {
  // A thread's status index: idle → busy → idle every run. Deleting the id from a Map and setting
  // it again left every deleted copy in its hash chain: ~45 µs a lookup among 20,000 ids against
  // ~0.2 µs among 100. A ratio in one process, with a margin far beyond a loaded machine's noise.
  const churn = (count: number) => {
    const ids = new OrderedIds();
    for (let i = 0; i < count; i++) ids.add(`t${i}`);
    const started = process.hrtime.bigint();
    for (let i = 0; i < 10_000; i++) {
      ids.delete('t0');
      ids.add('t0');
    }
    return Number(process.hrtime.bigint() - started);
  };
  const few = Math.min(churn(100), churn(100));
  const many = Math.min(churn(20_000), churn(20_000));
  assert.ok(many < 20 * few, `10,000 deletes and adds of one id: ${many / 1e6} ms among 20,000 ids, ${few / 1e6} ms among 100`);
});

test("a set of a packed collection's ids holds their numbers and walks back to the ids, small or large (issue 91)", () => {
  const ids = new PackedIds();
  for (const count of [5, 100]) {
    const set = new OrderedIds(null, ids);
    const added = Array.from({ length: count }, () => randomUUID());
    for (const id of added) {
      ids.add(id);
      set.add(id);
    }
    assert.equal(set.delete(added[1]!), true);
    assert.equal(set.has(added[1]!), false);
    assert.equal(set.has(randomUUID()), false, 'an id not numbered is not held');
    assert.equal(set.delete(randomUUID()), false);
    set.add(added[1]!);
    const walked = [...set.forward()];
    assert.deepEqual(walked, [added[0], ...added.slice(2), added[1]]);
    assert.deepEqual([...set.backward()], walked.reverse());
    const slots = (set as unknown as { slots: unknown[] }).slots;
    assert.ok(
      slots.every((held) => held === undefined || typeof held === 'number'),
      'numbers, not the ids',
    );
  }
  assert.throws(() => new OrderedIds(null, ids).add(randomUUID()), /no number/);
});
