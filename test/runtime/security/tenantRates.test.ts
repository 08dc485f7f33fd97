// A tenant's rate (runtime/security/tenantRates.ts): a burst is let in whole, then one request per
// 1/perSecond; a request refused takes nothing and says how long to wait; tenants are apart.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { TenantRates } from '../../../src/runtime/security/tenantRates.ts';
import { countLoopTurns } from '../../support/loopTurns.ts';

test('a burst goes, the next waits its share of a second; another tenant has its own bucket', () => {
  let now = 0;
  const rates = new TenantRates(10, 10, () => now);
  for (let i = 0; i < 10; i++) assert.equal(rates.take('a'), 0);
  assert.ok(Math.abs(rates.take('a') - 0.1) < 1e-9, 'one request every 0.1 s');
  // a refusal takes nothing: the wait does not grow by asking again
  assert.ok(Math.abs(rates.take('a') - 0.1) < 1e-9);
  assert.equal(rates.take('b'), 0);
  now += 100;
  assert.equal(rates.take('a'), 0);
  assert.ok(rates.take('a') > 0);
  // idle, the bucket fills to its burst and no further
  now += 60_000;
  for (let i = 0; i < 10; i++) assert.equal(rates.take('a'), 0);
  assert.ok(rates.take('a') > 0);
});

test("a tenant's refusals held together are answered one a turn of the loop; another tenant's comes after one of them, not after all", async () => {
  // issue 83: a tenant's 32 connections refused together fell due together, and their 429s were
  // written back to back in one timers phase while another tenant's request waited to be read
  // the holds' timers fall due in one go (a clock of the test's: on a loaded machine real timers
  // made a millisecond apart fell due in two timers phases, B's after five of A's turns)
  mock.timers.enable({ apis: ['setTimeout'] });
  const rates = new TenantRates(10);
  const loop = countLoopTurns();
  const answered: { who: string; turn: number }[] = [];
  const held = (who: string) => rates.hold(who.slice(0, 1), 0.05).then(() => void answered.push({ who, turn: loop.turn }));
  const flood = Array.from({ length: 20 }, (_, i) => held(`a${i}`));
  const all = Promise.all([...flood, held('b')]);
  mock.timers.tick(50);
  mock.timers.reset();
  await all;
  loop.stop();
  // a tenant's each in a turn of its own; another tenant's may share one of them (turns.ts: one piece of each owner waiting a turn)
  const turns = answered.filter((a) => a.who.startsWith('a')).map((a) => a.turn);
  assert.equal(new Set(turns).size, turns.length, `each in a turn of its own: ${answered.map((a) => `${a.who}@${a.turn}`).join(' ')}`);
  assert.ok(answered.findIndex((a) => a.who === 'b') <= 1, answered.map((a) => a.who).join(' '));
});
