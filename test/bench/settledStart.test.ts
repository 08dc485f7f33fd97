// The bench's idle figures (the burst's RSS, the under-load phase's idle probes) are read once the
// fresh server's start-up work has settled (its warm run worker loaded), not at a fixed time in
// that climb: the rule, on RSS samples taken each second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IDLE_MAX_MS, IDLE_STEP_MS, idleSettled } from '../../scripts/bench/settledStart.ts';

const MB = 1048576;
const samples = (...mb: number[]) => mb.map((m) => m * MB);

test('RSS still climbing while the warm worker loads is not idle, however long the climb', () => {
  assert.equal(idleSettled(samples(73, 102, 129, 145, 157, 167)), false);
  assert.equal(idleSettled(samples(71, 116, 137, 181, 204, 211, 211)), false, 'the last four span 181-211');
});

test('idle once the last four samples lie within 3% of their largest, from 5 s on', () => {
  assert.equal(idleSettled(samples(71, 116, 137, 181, 204, 211, 211, 211)), false, '204 is 3.3% under 211');
  assert.equal(idleSettled(samples(71, 116, 137, 181, 204, 211, 211, 211, 211)), true);
  assert.equal(idleSettled(samples(73, 102, 129, 145, 157, 167, 206, 199, 206, 206, 206)), false, '199 is 3.4% under 206');
  assert.equal(idleSettled(samples(73, 102, 129, 145, 157, 167, 206, 199, 206, 206, 206, 206)), true);
});

test('a server already still at its first 200 is read at 5 s, not before', () => {
  assert.equal(idleSettled(samples(210, 210, 210, 210, 210)), false);
  assert.equal(idleSettled(samples(210, 210, 210, 210, 210, 210)), true);
});

test('a server that never holds still is read at the wait’s end', () => {
  const climbing = Array.from({ length: IDLE_MAX_MS / IDLE_STEP_MS }, (_, i) => (100 + i * 10) * MB);
  assert.equal(idleSettled(climbing), false);
  assert.equal(idleSettled([...climbing, 500 * MB]), true);
});
