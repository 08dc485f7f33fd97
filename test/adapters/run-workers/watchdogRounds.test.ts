// A watchdog round after the main thread was blocked says how long it was away, so the runs
// are not charged for time the server could not hear their heartbeats (watchdogRounds.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchdogRounds } from '../../../src/adapters/run-workers/watchdogRounds.ts';

test('rounds on time, or a little late on a busy loop, report no gap', () => {
  const rounds = new WatchdogRounds(750, 0);
  assert.equal(rounds.blockedBefore(750), 0);
  assert.equal(rounds.blockedBefore(1_520), 0);
  // up to one more interval late is a busy loop, not a blocked one
  assert.equal(rounds.blockedBefore(3_000), 0);
});

test('a round after the main thread was blocked reports the time beyond its interval, once', () => {
  const rounds = new WatchdogRounds(750, 0);
  assert.equal(rounds.blockedBefore(750), 0);
  // blocked for 6 s: the round due at 1,500 comes at 7,050
  assert.equal(rounds.blockedBefore(7_050), 7_050 - 750 - 750);
  // the next round is on time again
  assert.equal(rounds.blockedBefore(7_800), 0);
});
