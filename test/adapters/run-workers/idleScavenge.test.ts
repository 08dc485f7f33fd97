// When a run worker empties its young generation between runs (issue 89): once it goes idle
// after a run with the young generation above the threshold, never while a run is in it or
// arrives first, and not for a young generation that holds little, nor for one with room left
// for the next run (session 26: a scavenge after every back-to-back run cost ~1 ms each).
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { IDLE_SCAVENGE, IdleScavenge } from '../../../src/adapters/run-workers/idleScavenge.ts';

const SETTINGS = { youngBytes: 1_000_000, roomRuns: 1.5, afterMs: 1, restMs: 10_000 };
let scavenges: number;
let youngBytes: number;
let youngRoom: number;
let runsInWorker: number;
let idleScavenge: IdleScavenge;

beforeEach(() => {
  mock.timers.enable({ apis: ['setTimeout'] });
  scavenges = 0;
  youngBytes = 0;
  youngRoom = 0;
  runsInWorker = 0;
  idleScavenge = new IdleScavenge({ used: () => youngBytes, room: () => youngRoom, collect: () => scavenges++ }, () => runsInWorker === 0, SETTINGS);
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

test('a young generation with room for one and a half of the last run is left alone; with less, emptied', () => {
  const scavengesAfter = (startUsed: number, endUsed: number, room: number) => {
    const before = scavenges;
    youngBytes = startUsed;
    idleScavenge.runStarted(true);
    youngBytes = endUsed;
    youngRoom = room;
    idleScavenge.runEnded();
    mock.timers.tick(SETTINGS.afterMs);
    return scavenges - before;
  };
  // a run alone in the worker: what it allocated is known
  assert.equal(scavengesAfter(2_000_000, 3_500_000, 10_000_000), 0, 'the first allocates 1.5 MB, with room for 6');
  assert.equal(scavengesAfter(3_500_000, 5_000_000, 2_000_000), 1, 'room for 2 MB: under 1.5 x 1.5 MB');
  assert.equal(scavengesAfter(500_000, 2_000_000, 6_000_000), 0, 'room for 6 MB: the next run fits');
  // a scavenge inside the run (it holds less at its end): what it allocated is not known, emptied
  assert.equal(scavengesAfter(5_000_000, 2_000_000, 6_000_000), 1);
  // a run that was not alone in the worker: its allocation is not its own, emptied
  youngBytes = 1_500_000;
  idleScavenge.runStarted(false);
  youngBytes = 2_000_000;
  youngRoom = 6_000_000;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 3);
});

test('a run that allocated more than the others keeps the room for a run like it for the next few', () => {
  const run = (allocates: number, room: number) => {
    const before = scavenges;
    youngBytes = 2_000_000;
    idleScavenge.runStarted(true);
    youngBytes += allocates;
    youngRoom = room;
    idleScavenge.runEnded();
    mock.timers.tick(SETTINGS.afterMs);
    return scavenges - before;
  };
  assert.equal(run(3_000_000, 8_000_000), 0);
  // 1 MB now, but the 3 MB run before counts for 2.7 MB: room for 4 MB is under 1.5 x 2.7
  assert.equal(run(1_000_000, 4_000_000), 1);
  // faded over the runs after it: room for 4 MB does
  for (let i = 0; i < 6; i++) run(1_000_000, 8_000_000);
  assert.equal(run(1_000_000, 4_000_000), 0);
});

test('a young generation under the threshold is left alone', () => {
  youngBytes = SETTINGS.youngBytes;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.afterMs);
  assert.equal(scavenges, 0);
});

test('a worker that has held no run for restMs after its last one shrinks its young generation once, whatever it holds (issue 91)', () => {
  // under the threshold: the scavenge right after the run is not had, the rest's is
  youngBytes = 0;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.restMs - 1);
  assert.equal(scavenges, 0, 'not before restMs');
  mock.timers.tick(1);
  assert.equal(scavenges, 1, 'idle for restMs: one scavenge, for V8 to shrink the young generation');
  mock.timers.tick(SETTINGS.restMs * 5);
  assert.equal(scavenges, 1, 'once: an idle worker is left alone after it');
  // a warm-up run's end (rest alone) arms it as well
  idleScavenge.rest();
  mock.timers.tick(SETTINGS.restMs);
  assert.equal(scavenges, 2);
});

test('runs ending within restMs put the rest off; a run in the worker when it is due defers it to that run’s end', () => {
  youngBytes = 0;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.restMs / 2);
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.restMs / 2);
  assert.equal(scavenges, 0, 'a run ended within the last restMs');
  mock.timers.tick(SETTINGS.restMs);
  assert.equal(scavenges, 1, 'a whole restMs with no end: shrunk');
  idleScavenge.runEnded();
  runsInWorker = 1;
  mock.timers.tick(SETTINGS.restMs * 3);
  assert.equal(scavenges, 1, 'never while a run is in the worker');
  runsInWorker = 0;
  idleScavenge.runEnded();
  mock.timers.tick(SETTINGS.restMs);
  assert.equal(scavenges, 2, 'that run’s end arms it again');
  assert.equal(IDLE_SCAVENGE.restMs, 10_000, 'by default 10 s: past V8’s 5-s window of low allocation');
});
