// The differential suite's judgement (compare.ts): a difference no entry of
// deliberate-differences.json allows fails its scenario, and an entry that allows nothing the
// compared scenarios show fails the file, so the list is what differs, no more and no less.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ListedUse, differences, normalise, type DeliberateDifference } from './compare.ts';

const entry = (scenario: string, paths: string[]): DeliberateDifference => ({ scenario, paths, summary: `${scenario} differs`, reason: 'a test' });

it('a difference neither matched nor listed is left for the scenario to fail on; a listed one is allowed', () => {
  const listed = new ListedUse([entry('a', ['$.order[*]']), entry('*', ['$.*.interrupts'])]);
  const found = differences(normalise({ order: [1, 2], state: { interrupts: {} }, extra: 1 }), normalise({ order: [2, 1], state: { interrupts: null } }));
  assert.deepEqual(
    listed.unexplained('a', found).map((d) => d.path),
    ['$.extra'],
  );
  // another scenario's entry allows nothing here
  assert.deepEqual(
    listed.unexplained('b', found).map((d) => d.path),
    ['$.extra', '$.order[0]', '$.order[1]'],
  );
});

it('an entry of a compared scenario that met no difference is unmet; entries of scenarios not compared, and of every scenario, are not judged', () => {
  const stale = entry('a', ['$.gone']);
  const met = entry('a', ['$.order[*]']);
  const listed = new ListedUse([stale, met, entry('c', ['$.x']), entry('*', ['$.never'])]);
  listed.unexplained('a', differences(normalise({ order: [1] }), normalise({ order: [2] })));
  assert.deepEqual(listed.unmet(), [stale]);
});

it('an entry whose upstream side varies by timing may go unmet, and still allows only its own paths', () => {
  const varies: DeliberateDifference = { ...entry('a', ['$.replayed[0]']), upstreamVaries: 'upstream replays its first event only sometimes' };
  const listed = new ListedUse([varies]);
  // a run where upstream happened to answer as agentplane does: nothing differs, nothing is unmet
  listed.unexplained('a', differences(normalise({ replayed: [1] }), normalise({ replayed: [1] })));
  assert.deepEqual(listed.unmet(), []);
  // a difference elsewhere is not allowed by it
  const found = differences(normalise({ replayed: [1], other: 1 }), normalise({ replayed: [1], other: 2 }));
  assert.deepEqual(
    listed.unexplained('a', found).map((d) => d.path),
    ['$.other'],
  );
});
