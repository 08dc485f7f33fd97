// Pieces of work that wait their turn (shared/turns.ts) run one a turn of the event loop, and
// owners take turns: another owner's piece waits for one of a flooding owner's, never for its
// whole queue (issue 83: one tenant's runs ending together held another's request back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ownTurn } from '../../src/shared/turns.ts';
import { countLoopTurns } from '../support/loopTurns.ts';

test("owners take turns: another owner's piece runs after one of a flooding owner's, not after its queue", async () => {
  const ran: string[] = [];
  const pieces = Array.from({ length: 6 }, (_, i) => ownTurn('a').then(() => void ran.push(`a${i}`)));
  pieces.push(ownTurn('b').then(() => void ran.push('b0')));
  pieces.push(ownTurn('b').then(() => void ran.push('b1')));
  await Promise.all(pieces);
  assert.deepEqual(ran, ['a0', 'b0', 'a1', 'b1', 'a2', 'a3', 'a4', 'a5']);
});

test('each piece runs in a turn of the loop of its own (the loop polls its sockets between two)', async () => {
  const loop = countLoopTurns();
  const turns: number[] = [];
  await Promise.all(Array.from({ length: 4 }, () => ownTurn('a').then(() => void turns.push(loop.turn))));
  loop.stop();
  assert.equal(new Set(turns).size, 4, `turns ${turns.join(', ')}`);
});

test('a piece of an owner with nothing waiting ahead of it waits one turn only', async () => {
  let ran = false;
  const piece = ownTurn('c').then(() => (ran = true));
  await new Promise((resolve) => setImmediate(resolve));
  await piece;
  assert.equal(ran, true);
});
