// The PostgreSQL ceiling replays a typical recorded run (scripts/bench/typicalRecording.ts): a
// last run with one statement more than the runs before it is left out, and what it sent said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extraStatements, signatureOf, typicalIndex } from '../../scripts/bench/typicalRecording.ts';

const run = (...texts: string[]) => texts.map((text) => ({ text }));

test('the latest run wins when the runs agree', () => {
  const same = signatureOf(run('BEGIN', 'SELECT 1', 'COMMIT'));
  assert.equal(typicalIndex([same, same, same]), 2);
});

test('a last run with an extra statement is left out for the latest typical one', () => {
  const typical = run('BEGIN', 'SELECT  run\n FROM runs', 'COMMIT');
  const odd = run('BEGIN', 'SELECT run FROM runs', 'UPDATE runs SET lease = $1', 'COMMIT');
  const signatures = [signatureOf(typical), signatureOf(typical), signatureOf(odd)];
  assert.equal(typicalIndex(signatures), 1);
  // whitespace does not make runs differ; the extra statement is named
  assert.deepEqual(extraStatements(odd, typical), ['UPDATE runs SET lease = $1']);
});

test('an odd run in the middle does not move the choice off the last; no runs is an error', () => {
  const a = signatureOf(run('SELECT 1'));
  const b = signatureOf(run('SELECT 1', 'SELECT 2'));
  assert.equal(typicalIndex([a, b, a]), 2);
  // all different: the latest
  assert.equal(typicalIndex([a, b, signatureOf(run('SELECT 3'))]), 2);
  assert.throws(() => typicalIndex([]));
});
