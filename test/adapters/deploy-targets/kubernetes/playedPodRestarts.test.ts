// kube-local's back-off for a played pod that stopped (playedPodRestarts.ts): started again after
// a wait that doubles while it keeps stopping, up to a cap, and back to the least once it has
// run long enough; nothing for a pod that runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEALTHY_MS, PlayedPodRestarts, RESTART_MAX_MS, RESTART_MIN_MS } from '../../../../src/adapters/deploy-targets/kubernetes/playedPodRestarts.ts';

test('a running pod is left alone', () => {
  const restarts = new PlayedPodRestarts();
  assert.deepEqual(restarts.seen('p', true, 0), { do: 'nothing' });
  assert.deepEqual(restarts.seen('p', true, 10_000), { do: 'nothing' });
});

test('a stopped pod is started once its wait is over, and only then', () => {
  const restarts = new PlayedPodRestarts();
  assert.deepEqual(restarts.seen('p', false, 0), { do: 'wait', inMs: RESTART_MIN_MS });
  assert.deepEqual(restarts.seen('p', false, RESTART_MIN_MS - 1), { do: 'nothing' });
  assert.deepEqual(restarts.seen('p', false, RESTART_MIN_MS), { do: 'start' });
});

test('a pod that keeps stopping waits twice as long each time, up to the cap', () => {
  const restarts = new PlayedPodRestarts();
  let now = 0;
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    const action = restarts.seen('p', false, now);
    assert.equal(action.do, 'wait');
    const inMs = (action as { inMs: number }).inMs;
    waits.push(inMs);
    now += inMs;
    assert.deepEqual(restarts.seen('p', false, now), { do: 'start' });
    // it started, ran a moment and stopped again
    now += 100;
    restarts.seen('p', true, now);
    now += 100;
  }
  assert.deepEqual(waits, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  assert.ok(waits.every((w) => w <= RESTART_MAX_MS));
});

test('a start that did not take (still stopped at the next look) waits the doubled time', () => {
  const restarts = new PlayedPodRestarts();
  restarts.seen('p', false, 0);
  assert.deepEqual(restarts.seen('p', false, RESTART_MIN_MS), { do: 'start' });
  assert.deepEqual(restarts.seen('p', false, RESTART_MIN_MS + 5_000), { do: 'wait', inMs: 2 * RESTART_MIN_MS });
});

test('a pod that ran long enough is recovered: its next stop waits the least again', () => {
  const restarts = new PlayedPodRestarts();
  restarts.seen('p', false, 0);
  restarts.seen('p', false, 1_000); // start
  restarts.seen('p', false, 2_000); // 2 s
  restarts.seen('p', false, 4_000); // start
  restarts.seen('p', true, 5_000);
  restarts.seen('p', true, 5_000 + HEALTHY_MS);
  assert.deepEqual(restarts.seen('p', false, 6_000 + HEALTHY_MS), { do: 'wait', inMs: RESTART_MIN_MS });
});

test('each pod has its own back-off, and a forgotten pod starts afresh', () => {
  const restarts = new PlayedPodRestarts();
  restarts.seen('a', false, 0);
  restarts.seen('a', false, 1_000);
  assert.deepEqual(restarts.seen('a', false, 2_000), { do: 'wait', inMs: 2_000 });
  assert.deepEqual(restarts.seen('b', false, 2_000), { do: 'wait', inMs: RESTART_MIN_MS });
  restarts.forgetUnless((pod) => pod === 'b');
  assert.deepEqual(restarts.seen('a', false, 3_000), { do: 'wait', inMs: RESTART_MIN_MS });
});
