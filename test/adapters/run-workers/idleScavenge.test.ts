// When a run worker empties its young generation between runs (issue 89): once it goes idle
// after a run with the young generation above the threshold, never while a run is in it or
// arrives first, and not for a young generation that holds little.
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { IdleScavenge } from '../../../src/adapters/run-workers/idleScavenge.ts';

const SETTINGS = { youngBytes: 1_000_000, afterMs: 1 };
let scavenges: number;
let youngBytes: number;
let runsInWorker: number;
let idleScavenge: IdleScavenge;

beforeEach(() => {
  mock.timers.enable({ apis: ['setTimeout'] });
  scavenges = 0;
  youngBytes = 0;
  runsInWorker = 0;
  idleScavenge = new IdleScavenge({ used: () => youngBytes, collect: () => scavenges++ }, () => runsInWorker === 0, SETTINGS);
});
afterEach(() => mock.timers.reset());

test('a worker that goes idle after a run with its young generation over the threshold empties it', () => {
  youngBytes = 3_500_000;
  idleScavenge.runEnded();
  assert.equal(scavenges, 0, 'not inside the run’s end: its end is posted first');
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 1);
  // every run's end, not only the first's
  idleScavenge.runEnded();
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 2, 'one scavenge per idle spell');
});

test('no scavenge while a run is in the worker, or when one arrived before the collection’s turn', () => {
  youngBytes = 3_500_000;
  // one run of two ended: the other still runs
  runsInWorker = 1;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 0);
  // the last ended, and the next (queued for this worker) arrived at once
  runsInWorker = 0;
  idleScavenge.runEnded();
  runsInWorker = 1;
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 0, 'the run that arrived is not delayed by a collection');
});

test('a young generation under the threshold is left alone', () => {
  youngBytes = SETTINGS.youngBytes;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 0);
});
