// One address's refused upgrades are paced (issue 83: a client reopening key-less upgrades had
// ~8,000 refused a second, most of the server's CPU): a burst is answered at once, then a steady
// rate; another address has its own budget, and an address quiet long enough has it whole again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RefusalPace } from '../../../../src/runtime/transports/websocket/refusalPace.ts';

test("an address's refusals past its burst wait their turn at its rate; another address and a rested one do not wait", () => {
  let now = 1_000;
  const pace = new RefusalPace(10, 3, () => now);
  assert.deepEqual(
    [1, 2, 3].map(() => pace.delayOf('10.0.0.1')),
    [0, 0, 0],
    'the burst is answered at once',
  );
  // then one every 100 ms: the fourth waits 100 ms, the fifth 200 ms
  assert.equal(Math.round(pace.delayOf('10.0.0.1')), 100);
  assert.equal(Math.round(pace.delayOf('10.0.0.1')), 200);
  assert.equal(pace.delayOf('10.0.0.2'), 0, 'another address has its own budget');
  now += 1_000;
  // 500 ms of the budget used, 1 s passed: the burst is whole again
  assert.deepEqual(
    [1, 2, 3].map(() => pace.delayOf('10.0.0.1')),
    [0, 0, 0],
  );
});

test('the addresses remembered are only those refused lately', () => {
  let now = 0;
  const pace = new RefusalPace(100, 1, () => now);
  for (let i = 0; i < 5_000; i++) pace.delayOf(`10.0.${i >> 8}.${i & 255}`);
  now += 1_000;
  pace.delayOf('10.1.0.1');
  // past 4,096 addresses, those whose budget is whole again are forgotten
  assert.equal(pace.remembered(), 1);
});
