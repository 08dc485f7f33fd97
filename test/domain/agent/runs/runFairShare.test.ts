// Run slots are shared fairly between owners (issue 83: one tenant's 30 queued runs held
// another's run back 29.5 s): each slot to the owner with the fewest runs executing, each
// owner's runs in receipt order, receipt order alone when owners are even.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fairShareOrder, firstInFairOrder } from '../../../../src/domain/agent/runs/runFairShare.ts';

const runs = (spec: string) => spec.split(' ').map((id) => ({ id, owner: id[0] }));
const ids = (list: { id: string }[]) => list.map((r) => r.id).join(' ');

test("an owner's long queue does not hold another's run back: the other's first run comes at the next slot", () => {
  // A queued 5 runs before B's one; A has 2 executing, B none
  assert.equal(ids(fairShareOrder(runs('a1 a2 a3 a4 a5 b1'), new Map([['a', 2]]))), 'b1 a1 a2 a3 a4 a5');
  // with nothing executing, the owners take turns, each in its own receipt order
  assert.equal(ids(fairShareOrder(runs('a1 a2 a3 b1 b2 c1'), new Map())), 'a1 b1 c1 a2 b2 a3');
});

test('owners even: receipt order, as with one owner', () => {
  assert.equal(
    ids(
      fairShareOrder(
        runs('a1 b1 a2 b2'),
        new Map([
          ['a', 1],
          ['b', 1],
        ]),
      ),
    ),
    'a1 b1 a2 b2',
  );
  assert.equal(ids(fairShareOrder(runs('a1 a2 a3'), new Map([['a', 7]]))), 'a1 a2 a3');
  assert.deepEqual(fairShareOrder([], new Map()), []);
});

test('an owner with more executing waits until the others have caught up, and keeps its own order', () => {
  assert.equal(
    ids(
      fairShareOrder(
        runs('a1 a2 b1 b2 b3'),
        new Map([
          ['a', 0],
          ['b', 3],
        ]),
      ),
    ),
    'a1 a2 b1 b2 b3',
  );
  assert.equal(ids(fairShareOrder(runs('b1 a1 b2 a2'), new Map([['b', 1]]))), 'a1 b1 a2 b2');
});

test("an owner's runs take at most its share of a server's slots: the slot left is another owner's run's; the shared space is not capped", () => {
  // issue 83: A held every slot, and B's run waited for the first of A's runs to end
  const perOwner = 3;
  assert.equal(ids(fairShareOrder(runs('a1 a2 a3 a4 a5'), new Map([['a', 1]]), perOwner)), 'a1 a2', "two more of A's, to three");
  assert.equal(ids(fairShareOrder(runs('a1 a2 b1'), new Map([['a', 3]]), perOwner)), 'b1', 'A at its share: only B goes');
  // runs made with no tenant (agent-server auth off) are one space, which no quota counts
  const shared = ['s1', 's2', 's3', 's4', 's5'].map((id) => ({ id, owner: '' }));
  assert.equal(ids(fairShareOrder(shared, new Map([['', 3]]), perOwner)), 's1 s2 s3 s4 s5');
});

test('the first few in fair order, found from the waiting runs in any order, are the head of the whole order', () => {
  const candidate = fc.record({ runId: fc.uuid(), owner: fc.constantFrom('', 'a', 'b', 'c') });
  fc.assert(
    fc.property(
      fc.uniqueArray(candidate, { selector: (c) => c.runId, maxLength: 60 }),
      fc.boolean(),
      fc.dictionary(fc.constantFrom('', 'a', 'b', 'c'), fc.nat(6)),
      fc.option(fc.nat(8), { nil: undefined }),
      fc.nat(20),
      (list, oneOwner, executing, perOwner, want) => {
        const candidates = oneOwner ? list.map((c) => ({ ...c, owner: 'a' })) : list;
        const running = new Map(Object.entries(executing));
        const sorted = [...candidates].sort((x, y) => (x.runId < y.runId ? -1 : x.runId > y.runId ? 1 : 0));
        assert.deepEqual(firstInFairOrder(candidates, running, perOwner, want), fairShareOrder(sorted, running, perOwner).slice(0, want));
      },
    ),
    { numRuns: 2000 },
  );
});

test('one owner of 100 waiting threads: the oldest run first, and no more than its share', () => {
  const waiting = Array.from({ length: 100 }, (_, i) => ({ runId: `r${String(1000 - i).padStart(4, '0')}`, owner: 'a' }));
  assert.deepEqual(
    firstInFairOrder(waiting, new Map([['a', 1]]), 3, 5).map((c) => c.runId),
    ['r0901', 'r0902'],
  );
  assert.deepEqual(
    firstInFairOrder(waiting, new Map(), undefined, 1).map((c) => c.runId),
    ['r0901'],
  );
});
