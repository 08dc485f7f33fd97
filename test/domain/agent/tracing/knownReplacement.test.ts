// knownReplacement.ts: a method is replaced on each build only while its source is a known one,
// once, and the original stays at hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fingerprint, knownReplacement } from '../../../../src/domain/agent/tracing/knownReplacement.ts';

type Greet = () => string;
const known = (): string => 'known';
const other = (): string => 'other';

/** Two builds of a class, each with its own static method. */
function classes(esm: Greet, commonJs: Greet) {
  return [{ greet: esm }, { greet: commonJs }];
}

/** What each build's method answers now. */
const said = (targets: { greet: Greet }[]) => targets.map((t) => t.greet());

function replacing(targets: { greet: Greet }[]) {
  return knownReplacement<{ greet: Greet }, Greet>({
    classes: () => targets,
    known: new Set([fingerprint(known)]),
    get: (target) => target.greet,
    set: (target, greet) => (target.greet = greet),
    replacement: () => () => 'replaced',
  });
}

test('a method whose source is a known one is replaced on every build, its original kept', () => {
  const targets = classes(known, known);
  const replacement = replacing(targets);
  assert.equal(replacement.use(), 2);
  assert.deepEqual(said(targets), ['replaced', 'replaced']);
  for (const target of targets) assert.equal(replacement.original(target), known);
  assert.equal(replacement.use(), 2, 'a second call changes nothing');
  assert.deepEqual(said(targets), ['replaced', 'replaced']);
});

test('a method of another source is left as it is', () => {
  const targets = classes(known, other);
  const replacement = replacing(targets);
  assert.equal(replacement.use(), 1);
  assert.deepEqual(said(targets), ['replaced', 'other']);
  assert.equal(replacement.original(targets[1]!), other, 'the original of a class never replaced is its own method');
  assert.equal(replacement.use(), 1);
});
