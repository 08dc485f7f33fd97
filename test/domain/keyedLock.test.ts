// One key's work runs one after the other, in the order it came; work that waited for the one
// before starts in a turn of the event loop of its own, so a queue under one key (a tenant's
// creations under its quota lock) never runs back to back with no socket read between (issue 83:
// ~20 of one tenant's creations in 13 ms, another tenant's request waiting behind them all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedLock } from '../../src/domain/keyedLock.ts';
import { countLoopTurns } from '../support/loopTurns.ts';

test("one key's work runs in the order it came, one at a time, each that waited in a turn of the loop of its own", async () => {
  const lock = new KeyedLock();
  const loop = countLoopTurns();
  const ran: { name: string; turn: number }[] = [];
  let inside = 0;
  const work = (name: string) => async () => {
    inside += 1;
    assert.equal(inside, 1, 'two at once under one key');
    ran.push({ name, turn: loop.turn });
    await Promise.resolve();
    inside -= 1;
    return name;
  };
  const results = await Promise.all(Array.from({ length: 5 }, (_, i) => lock.run('tenant-a', work(`a${i}`))));
  loop.stop();
  assert.deepEqual(results, ['a0', 'a1', 'a2', 'a3', 'a4']);
  assert.deepEqual(
    ran.map((r) => r.name),
    results,
  );
  assert.equal(new Set(ran.map((r) => r.turn)).size, 5, `turns ${ran.map((r) => r.turn).join(', ')}`);
});

test('work that finds its key free starts at once; another key never waits for this one', async () => {
  const lock = new KeyedLock();
  let release!: () => void;
  const held = lock.run('a', () => new Promise<void>((resolve) => (release = resolve)));
  let other = false;
  const otherDone = lock.run('b', async () => {
    other = true;
  });
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(other, true);
  await otherDone;
  release();
  await held;
});

test("a failed work does not stop the key's next", async () => {
  const lock = new KeyedLock();
  const failed = lock.run('a', async () => {
    throw new Error('boom');
  });
  const next = lock.run('a', async () => 'next');
  await assert.rejects(failed, /boom/);
  assert.equal(await next, 'next');
});
