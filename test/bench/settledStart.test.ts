// The bench's idle figures (the burst's RSS, the under-load phase's idle probes) are read once the
// fresh server's start-up work has settled (its warm run worker loaded), not at a fixed time in
// that climb: the rule, on RSS samples taken each second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IDLE_MAX_MS, IDLE_MIN_MS, IDLE_STEP_MS, idleSettled } from '../../scripts/bench/settledStart.ts';

const MB = 1048576;
const samples = (...mb: number[]) => mb.map((m) => m * MB);

test('RSS still climbing while the warm worker loads is not idle, however long the climb', () => {
  assert.equal(idleSettled(samples(73, 102, 129, 145, 157, 167)), false);
  assert.equal(idleSettled(samples(71, 116, 137, 181, 204, 211, 211)), false, 'the last four span 181-211');
});

/** `mb` held from the first 200 up to the wait's minimum (the schema warm-up's plateau), then `after`. */
const plateau = (mb: number, ...after: number[]) => samples(...Array.from({ length: IDLE_MIN_MS / IDLE_STEP_MS }, () => mb), ...after);

test('the warm worker’s plateau before the schema warm-up ends is not idle, however still', () => {
  assert.equal(idleSettled(samples(71, 116, 137, 181, 204, 211, 211, 211, 211)), false, 'still from 5 s, but before the minimum');
  assert.equal(idleSettled(samples(70, 131, 181, ...Array.from({ length: 29 }, () => 209), 177, 176, 176)), false, 'the drop at 32 s');
});

test('idle once the last four samples lie within 3% of their largest, from the minimum on', () => {
  assert.equal(idleSettled(plateau(209, 177, 176, 176, 177)), true, 'the drop, then still');
  assert.equal(idleSettled(plateau(209, 177, 176, 160)), false, 'still falling');
  assert.equal(idleSettled(plateau(209, 177, 176, 160, 160, 160, 160)), true);
});

test('a server already still at its first 200 is read at the minimum, not before', () => {
  const still = (n: number) => samples(...Array.from({ length: n }, () => 210));
  assert.equal(idleSettled(still(IDLE_MIN_MS / IDLE_STEP_MS)), false);
  assert.equal(idleSettled(still(IDLE_MIN_MS / IDLE_STEP_MS + 1)), true);
});

test('a server that never holds still is read at the wait’s end', () => {
  const climbing = Array.from({ length: IDLE_MAX_MS / IDLE_STEP_MS }, (_, i) => (100 + i * 10) * MB);
  assert.equal(idleSettled(climbing), false);
  assert.equal(idleSettled([...climbing, 500 * MB]), true);
});
