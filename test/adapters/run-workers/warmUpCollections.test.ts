// When a run worker collects around the main thread's warm-up runs (issue 89): a full collection
// before the first, never one after them (it deoptimized the code they had optimized, and the
// first run compiled it again), and the young generation once they are over.
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { WarmUpCollections } from '../../../src/adapters/run-workers/warmUpCollections.ts';

const SETTLED_MS = 50;
let collected: string[];
let runsInWorker: number;
let collections: WarmUpCollections;

beforeEach(() => {
  mock.timers.enable({ apis: ['setTimeout'] });
  collected = [];
  runsInWorker = 0;
  collections = new WarmUpCollections({ full: () => collected.push('full'), young: () => collected.push('young') }, () => runsInWorker === 0, SETTLED_MS);
});
afterEach(() => mock.timers.reset());

/** One warm-up run through the worker, as runWorker.ts drives it: told before it starts and once it ended. */
function warmUpRun(): void {
  collections.beforeRun();
  collections.runEnded();
}

test('a full collection before the first warm-up run, and after the last only the young generation, once they are over', () => {
  for (let i = 0; i < 3; i++) {
    warmUpRun();
    // the next run comes within the settling time: nothing is collected between them
    mock.timers.tick(SETTLED_MS - 1);
  }
  assert.deepEqual(collected, ['full']);
  mock.timers.tick(1);
  assert.deepEqual(collected, ['full', 'young'], 'never a full collection after the warm-up runs');
  // a warm-up that comes again later (a reload's worker is another worker) collects no full again here
  warmUpRun();
  mock.timers.tick(SETTLED_MS);
  assert.deepEqual(collected, ['full', 'young', 'young']);
});

test('nothing is collected while a run is in the worker', () => {
  runsInWorker = 1;
  collections.beforeRun();
  collections.runEnded();
  mock.timers.tick(SETTLED_MS);
  assert.deepEqual(collected, []);
  // the project's run ended: the next warm-up run still finds what loading left collected first
  runsInWorker = 0;
  warmUpRun();
  mock.timers.tick(SETTLED_MS);
  assert.deepEqual(collected, ['full', 'young']);
});
