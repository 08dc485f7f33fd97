// An idle run worker whose heap grew well past its start, or that another idle worker can stand
// in for, is ended (its memory goes with it); one holding a run, one idle for a moment only, the
// only idle one whose heap stayed small, or one home to a thread waiting for its resume (its last
// run there stopped for input) is kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shouldRetire, type RetirementSettings } from '../../../src/runtime/idle/workerRetirement.ts';

const MB = 1024 * 1024;
const settings: RetirementSettings = { idleMs: 10_000, heapGrowthBytes: 32 * MB };
const grown = { heapBytes: 150 * MB, startHeapBytes: 40 * MB };
const idle = { runs: 0, awaitingResume: 0, otherIdle: 0 };

test('retires a worker idle for idleMs whose heap grew by heapGrowthBytes or more', () => {
  assert.equal(shouldRetire({ ...idle, idleMs: 10_000, ...grown }, settings), true);
  assert.equal(shouldRetire({ ...idle, idleMs: 60_000, heapBytes: 72 * MB, startHeapBytes: 40 * MB }, settings), true, 'exactly the growth');
});

test('keeps a worker that holds a run, however large and however long since its last', () => {
  assert.equal(shouldRetire({ ...idle, runs: 1, idleMs: 60_000, ...grown }, settings), false);
});

test('keeps a worker idle for less than idleMs', () => {
  assert.equal(shouldRetire({ ...idle, idleMs: 9_999, ...grown }, settings), false);
});

test('keeps a worker whose runs left its heap within heapGrowthBytes of its start', () => {
  assert.equal(shouldRetire({ ...idle, idleMs: 60_000, heapBytes: 71 * MB, startHeapBytes: 40 * MB }, settings), false);
  assert.equal(shouldRetire({ ...idle, idleMs: 60_000, heapBytes: 38 * MB, startHeapBytes: 40 * MB }, settings), false);
});

test('keeps a worker home to a thread waiting for its resume, however large and however long idle; retires it once none waits', () => {
  assert.equal(shouldRetire({ ...idle, awaitingResume: 1, idleMs: 3_600_000, ...grown }, settings), false);
  assert.equal(shouldRetire({ ...idle, awaitingResume: 3, idleMs: 60_000, ...grown }, settings), false);
  assert.equal(shouldRetire({ ...idle, awaitingResume: 0, idleMs: 60_000, ...grown }, settings), true);
});

test('retires a small idle worker while another worker is idle too, and keeps the last idle one (issue 91)', () => {
  const small = { heapBytes: 45 * MB, startHeapBytes: 40 * MB };
  assert.equal(shouldRetire({ ...idle, idleMs: 10_000, ...small, otherIdle: 1 }, settings), true);
  assert.equal(shouldRetire({ ...idle, idleMs: 10_000, ...small, otherIdle: 0 }, settings), false, 'the only idle worker stays warm');
  assert.equal(shouldRetire({ ...idle, idleMs: 9_999, ...small, otherIdle: 1 }, settings), false, 'idle a moment only');
  assert.equal(shouldRetire({ ...idle, runs: 1, idleMs: 60_000, ...small, otherIdle: 1 }, settings), false, 'holding a run');
  assert.equal(shouldRetire({ ...idle, awaitingResume: 1, idleMs: 60_000, ...small, otherIdle: 1 }, settings), false, 'awaiting a resume');
});
