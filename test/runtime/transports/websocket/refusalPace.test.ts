// One address's refused upgrades are paced (issue 83: a client reopening key-less upgrades had
// ~8,000 refused a second, most of the server's CPU): a burst is answered at once, then a steady
// rate; another address has its own budget, and an address quiet long enough has it whole again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RefusalPace } from '../../../../src/runtime/transports/websocket/refusalPace.ts';
import { countLoopTurns } from '../../../support/loopTurns.ts';

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

test("an address's paced refusals that fall due together are made one a turn of the loop; one cancelled is not made", async () => {
  // issue 83: the timers of paced refusals fell due together when the loop was late, and their
  // answers were written and their sockets closed back to back, another tenant's read waiting
  const pace = new RefusalPace(1_000, 1);
  const loop = countLoopTurns();
  const made: { who: string; turn: number }[] = [];
  const all = Array.from(
    { length: 10 },
    (_, i) => new Promise<void>((resolve) => pace.schedule('10.0.0.1', () => resolve(void made.push({ who: `a${i}`, turn: loop.turn })))),
  );
  const cancel = pace.schedule('10.0.0.1', () => made.push({ who: 'cancelled', turn: loop.turn }));
  cancel();
  // the loop held up past every refusal's time (1-10 ms): their timers are due in the same phase
  const until = performance.now() + 30;
  while (performance.now() < until);
  await Promise.all(all);
  await new Promise((resolve) => setTimeout(resolve, 20));
  loop.stop();
  assert.deepEqual(
    made.map((m) => m.who).sort(),
    Array.from({ length: 10 }, (_, i) => `a${i}`),
  );
  const turns = made.map((m) => m.turn);
  assert.equal(new Set(turns).size, turns.length, `each in a turn of its own: ${turns.join(', ')}`);
});
