// An idle run worker whose heap grew well past its start is ended (its memory goes with it);
// one holding a run, one idle for a moment only, or one whose heap stayed small is kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shouldRetire, type RetirementSettings } from '../../src/runtime/workerRetirement.ts';

const MB = 1024 * 1024;
const settings: RetirementSettings = { idleMs: 10_000, heapGrowthBytes: 32 * MB };
const grown = { heapBytes: 150 * MB, startHeapBytes: 40 * MB };

test('retires a worker idle for idleMs whose heap grew by heapGrowthBytes or more', () => {
  assert.equal(shouldRetire({ runs: 0, idleMs: 10_000, ...grown }, settings), true);
  assert.equal(shouldRetire({ runs: 0, idleMs: 60_000, heapBytes: 72 * MB, startHeapBytes: 40 * MB }, settings), true, 'exactly the growth');
});

test('keeps a worker that holds a run, however large and however long since its last', () => {
  assert.equal(shouldRetire({ runs: 1, idleMs: 60_000, ...grown }, settings), false);
});

test('keeps a worker idle for less than idleMs', () => {
  assert.equal(shouldRetire({ runs: 0, idleMs: 9_999, ...grown }, settings), false);
});

test('keeps a worker whose runs left its heap within heapGrowthBytes of its start', () => {
  assert.equal(shouldRetire({ runs: 0, idleMs: 60_000, heapBytes: 71 * MB, startHeapBytes: 40 * MB }, settings), false);
  assert.equal(shouldRetire({ runs: 0, idleMs: 60_000, heapBytes: 38 * MB, startHeapBytes: 40 * MB }, settings), false);
});
