// Pieces of work that wait their turn (shared/turns.ts) run one of an owner's a turn of the event
// loop, and owners take turns: another owner's piece waits for one of a flooding owner's, never
// for its whole queue (issue 83: one tenant's runs ending together held another's request back).
// Owners waiting together share a turn, one piece each, while the turn's slice lasts (issue 87).
// An owner's light pieces follow one another in a turn while its pieces of the turn are young
// (issue 86: a turn of the loop for each request cost more than the request).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIGHT_SLICE_MS, ownTurn, RUN_END, RUN_START, TURN_SLICE_MS, type TurnRank } from '../../src/shared/turns.ts';
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

test("owners waiting together are served in one turn, one piece each, unless the turn's slice ran out", async () => {
  const loop = countLoopTurns();
  const ran: { name: string; turn: number; at: number }[] = [];
  const piece = (owner: string, i: number) => ownTurn(owner).then(() => void ran.push({ name: `${owner}${i}`, turn: loop.turn, at: performance.now() }));
  const pieces = [0, 1, 2].flatMap((i) => [piece('a', i), piece('b', i)]);
  await Promise.all(pieces);
  loop.stop();
  assert.deepEqual(
    ran.map((r) => r.name),
    ['a0', 'b0', 'a1', 'b1', 'a2', 'b2'],
  );
  for (let i = 0; i < ran.length; i += 2) {
    const [a, b] = [ran[i]!, ran[i + 1]!];
    // b's piece shares a's turn; a turn of its own only when a's (the turn's slice) held the loop that long
    if (b.at - a.at < TURN_SLICE_MS) assert.equal(b.turn, a.turn, `${a.name} in turn ${a.turn}, ${b.name} in turn ${b.turn}`);
    // a's next piece: never in the turn of a's last
    if (i > 0) assert.ok(a.turn > ran[i - 2]!.turn, `${ran[i - 2]!.name} and ${a.name} in turn ${a.turn}`);
  }
});

test('a turn ends once its pieces have held the loop for its slice: the next owner waits for the next turn', async () => {
  const loop = countLoopTurns();
  const turns = new Map<string, number>();
  const a = ownTurn('a').then(() => {
    turns.set('a', loop.turn);
    const until = performance.now() + TURN_SLICE_MS + 1;
    while (performance.now() < until); // a piece that holds the loop past the slice
  });
  const b = ownTurn('b').then(() => void turns.set('b', loop.turn));
  await Promise.all([a, b]);
  loop.stop();
  assert.ok(turns.get('b')! > turns.get('a')!, `a in turn ${turns.get('a')}, b in turn ${turns.get('b')}`);
});

test("an owner's light pieces share a turn while its pieces of the turn began under the light slice ago", async () => {
  const loop = countLoopTurns();
  const turns: number[] = [];
  await Promise.all(Array.from({ length: 6 }, () => ownTurn('a', true).then(() => void turns.push(loop.turn))));
  loop.stop();
  // a turn each made six; a process descheduled past the light slice may split them once
  assert.ok(new Set(turns).size <= 2, `turns ${turns.join(', ')}`);
});

test("a light piece that holds the loop past the light slice ends its owner's pieces of the turn; another owner still comes between", async () => {
  const loop = countLoopTurns();
  const ran: { name: string; turn: number }[] = [];
  const pieces = Array.from({ length: 3 }, (_, i) =>
    ownTurn('a', true).then(() => {
      ran.push({ name: `a${i}`, turn: loop.turn });
      if (i === 0) {
        const until = performance.now() + LIGHT_SLICE_MS + 0.2;
        while (performance.now() < until);
      }
    }),
  );
  pieces.push(ownTurn('b', true).then(() => void ran.push({ name: 'b0', turn: loop.turn })));
  await Promise.all(pieces);
  loop.stop();
  assert.deepEqual(
    ran.map((r) => r.name),
    ['a0', 'b0', 'a1', 'a2'],
  );
  const turnOf = (name: string) => ran.find((r) => r.name === name)!.turn;
  assert.ok(turnOf('a1') > turnOf('a0'), `a0 in turn ${turnOf('a0')}, a1 in turn ${turnOf('a1')}`);
});

test("an owner's run starts go before its run ends, and those before its requests; each rank in the order asked (issue 86)", async () => {
  const ran: string[] = [];
  const piece = (name: string, owner: string, light: boolean, rank?: TurnRank) => ownTurn(owner, light, rank).then(() => void ran.push(name));
  // the SDK's creates queued first, then runs ending together, then a run's start
  const pieces = [piece('create0', 'a', true), piece('create1', 'a', true), piece('end0', 'a', false, RUN_END), piece('end1', 'a', false, RUN_END)];
  pieces.push(piece('start0', 'a', false, RUN_START), piece('create2', 'a', true), piece('start1', 'a', false, RUN_START));
  await Promise.all(pieces);
  assert.deepEqual(ran, ['start0', 'start1', 'end0', 'end1', 'create0', 'create1', 'create2']);
});

test("another owner's piece is served in rotation whatever the ranks of a flooding owner's pieces", async () => {
  const ran: string[] = [];
  const pieces = Array.from({ length: 4 }, (_, i) => ownTurn('a', false, RUN_START).then(() => void ran.push(`a${i}`)));
  pieces.push(ownTurn('b').then(() => void ran.push('b0')));
  await Promise.all(pieces);
  assert.deepEqual(ran, ['a0', 'b0', 'a1', 'a2', 'a3']);
});
