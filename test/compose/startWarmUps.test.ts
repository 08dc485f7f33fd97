// The start's background work (issue 89): the warm-ups in turn, then the main thread's young
// generation collected once they are over, so that the first run does not collect what the start
// allocated; never while a run executes, never once the server stops, never where nothing warmed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWarmUps, type StartWarmUps } from '../../src/compose/startWarmUps.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';

/** A step the test ends when it chooses, recording in `done` when it began and ended. */
function heldStep(name: string, done: string[]) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    work: async () => {
      done.push(`${name} began`);
      await ended;
      done.push(`${name} ended`);
    },
    end,
  };
}

/** Starts the warm-ups with `steps`; resolves with what happened once `busy` was asked at the end (the last thing the start's work does). */
function started(steps: Omit<StartWarmUps, 'busy'>, busy: () => boolean) {
  let asked!: () => void;
  const askedAtEnd = new Promise<void>((resolve) => (asked = resolve));
  const module = startWarmUps(
    {
      ...steps,
      busy: () => {
        asked();
        return busy();
      },
    },
    createLogger('silent'),
  );
  void module.start?.();
  return { module, askedAtEnd };
}

test("the main thread's young generation is collected once the run path's warm-up is over, not before", async () => {
  const done: string[] = [];
  const worker = heldStep('worker', done);
  const runPath = heldStep('run path', done);
  const { askedAtEnd } = started({ worker: worker.work, runPath: runPath.work, youngCollection: () => done.push('young collection') }, () => false);
  worker.end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(done, ['worker began', 'worker ended', 'run path began'], 'nothing collected while the run path warms');
  runPath.end();
  await askedAtEnd;
  assert.deepEqual(done, ['worker began', 'worker ended', 'run path began', 'run path ended', 'young collection']);
});

test("the server's own run store's first reads come after the run path's warm-up, before the young collection", async () => {
  const done: string[] = [];
  const runPath = heldStep('run path', done);
  const { askedAtEnd } = started(
    { runPath: runPath.work, ownReads: async () => void done.push('own first reads'), youngCollection: () => done.push('young collection') },
    () => false,
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(done, ['run path began'], 'not beside the run path’s warm-up');
  runPath.end();
  await askedAtEnd;
  assert.deepEqual(done, ['run path began', 'run path ended', 'own first reads', 'young collection']);
});

test('no collection while a run executes at the end of the warm-ups (it would pause that run)', async () => {
  const collected: string[] = [];
  const { askedAtEnd } = started({ runPath: async () => undefined, youngCollection: () => collected.push('young') }, () => true);
  await askedAtEnd;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(collected, []);
});

test('no collection once the server stopped during the warm-ups', async () => {
  const done: string[] = [];
  const runPath = heldStep('run path', done);
  const { module } = started({ runPath: runPath.work, youngCollection: () => done.push('young collection') }, () => false);
  await new Promise((resolve) => setImmediate(resolve));
  await module.stop?.();
  runPath.end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(done, ['run path began', 'run path ended']);
});

test('no collection where the start warmed nothing (runs in process, warm-ups off): it left nothing of its own', async () => {
  const collected: string[] = [];
  startWarmUps({ busy: () => false, youngCollection: () => collected.push('young') }, createLogger('silent')).start?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(collected, []);
});
