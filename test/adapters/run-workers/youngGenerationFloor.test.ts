// A run worker's young generation keeps room for its runs when V8 shrinks it (issue 89): V8
// shrinks an isolate's new space on a collection that reduces memory (after an idle stretch, as a
// heap snapshot's does) down to its floor, which keepYoungGenerationFloor raises for the isolates
// made after it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { RUN_WORKER_MIN_SEMI_SPACE_MB, keepYoungGenerationFloor, semiSpaceGiven } from '../../../src/adapters/run-workers/youngGenerationFloor.ts';

/** A thread's script: grows its new space with objects that live a while, has V8 reduce its memory, and answers the new space's size (MB) before and after. */
const GROWN_THEN_REDUCED = `
const v8 = require('node:v8');
const newSpaceMb = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 2 ** 20;
const ring = new Array(4096);
for (let i = 0; i < 16 * 1024; i++) ring[i % 4096] = new Array(128).fill(i);
const grown = newSpaceMb();
v8.getHeapSnapshot().destroy();
require('node:worker_threads').parentPort.postMessage({ grown, reduced: newSpaceMb() });`;

describe('the run workers’ young generation floor', () => {
  it('keeps the new space of a thread made after it at the floor when V8 reduces its memory', async () => {
    keepYoungGenerationFloor();
    const thread = new Worker(GROWN_THEN_REDUCED, { eval: true });
    const [{ grown, reduced }] = (await once(thread, 'message')) as [{ grown: number; reduced: number }];
    await thread.terminate();
    assert.ok(grown > RUN_WORKER_MIN_SEMI_SPACE_MB, `the thread's new space grew to ${grown} MB only`);
    assert.ok(reduced >= RUN_WORKER_MIN_SEMI_SPACE_MB, `V8 shrank the thread's new space to ${reduced} MB`);
  });

  it('leaves a semi-space size given to node as it is, on the command line or in NODE_OPTIONS', () => {
    assert.equal(semiSpaceGiven(['--max-semi-space-size=4']), true);
    assert.equal(semiSpaceGiven(['--import x.mjs', '--min_semi_space_size=2']), true);
    assert.equal(semiSpaceGiven(['--enable-source-maps --max-semi-space-size=32']), true);
    assert.equal(semiSpaceGiven(['--max-old-space-size=4096', '']), false);
  });
});
