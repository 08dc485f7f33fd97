// A tenant's requests that arrive together are handled one a turn of the event loop past the
// first few, so another tenant's request read meanwhile is handled between them (issue 83: 30
// requests of one tenant let in at once ran 15-35 ms back to back, another tenant's waiting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TenantTurns } from '../../../../src/runtime/transports/http/tenantTurns.ts';
import { LIGHT_SLICE_MS } from '../../../../src/shared/turns.ts';
import { countLoopTurns } from '../../../support/loopTurns.ts';

/** Holds the loop for `ms`, like a request's handling. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test("a tenant's requests past two at once wait for turns of the loop; another tenant's request, and a socket's read, come between them after at most the light slice of the tenant's", async () => {
  const turns = new TenantTurns();
  const handled: string[] = [];
  let readB: Promise<void> | undefined;
  const handle = async (tenant: string, name: string) => {
    const leave = await turns.enter(tenant);
    handled.push(name);
    // B's request is read while A's first is handled: it is handled in the loop's next turn
    if (name === 'a0') readB = new Promise((resolve) => setImmediate(() => void handle('b', 'b').then(resolve)));
    // handled synchronously, like a request answered from memory, then its answer ends; two
    // of A's fit in the light slice, a third does not
    if (tenant === 'a') busy(LIGHT_SLICE_MS * 0.6);
    setImmediate(leave);
  };
  await Promise.all(Array.from({ length: 10 }, (_, i) => handle('a', `a${i}`)));
  await readB;
  assert.deepEqual(handled.slice(0, 2), ['a0', 'a1'], 'two at once are not held');
  // not behind A's ten: after the one or two whose turn had come (a second follows the first
  // while the light slice lasts; a first run's compiling may take it)
  assert.ok([3, 4].includes(handled.indexOf('b')), handled.join(' '));
  // in order
  assert.deepEqual(
    handled.filter((name) => name !== 'b'),
    Array.from({ length: 10 }, (_, i) => `a${i}`),
  );
});

test('a tenant sending one request at a time never waits a turn: it enters in the same call, no promise to wait for', async () => {
  const turns = new TenantTurns();
  for (let i = 0; i < 5; i++) {
    const leave = turns.enter('a');
    assert.equal(typeof leave, 'function', 'entered at once');
    (leave as () => void)();
    (leave as () => void)(); // a second call does nothing
  }
  // two at once enter at once too; the third waits its turn
  const first = turns.enter('a');
  const second = turns.enter('a');
  assert.equal(typeof first, 'function');
  assert.equal(typeof second, 'function');
  const third = turns.enter('a');
  assert.ok(third instanceof Promise, 'the third waits a turn');
  // its turn taken here, not in the next test's rotation
  for (const leave of [first, second, await third]) (leave as () => void)();
});

test("a tenant's request that waits a turn waits for one of a flooding tenant's, not for its whole queue", async () => {
  const turns = new TenantTurns();
  const handled: string[] = [];
  const held: (() => void)[] = [];
  // each tenant has two requests in progress (a wait for a run, a stream)
  for (const tenant of ['a', 'a', 'b', 'b']) held.push(await turns.enter(tenant));
  const handle = async (tenant: string, name: string) => {
    const leave = await turns.enter(tenant);
    handled.push(name);
    setImmediate(leave);
  };
  const flood = Array.from({ length: 10 }, (_, i) => handle('a', `a${i}`));
  await Promise.all([...flood, handle('b', 'b')]);
  for (const leave of held) leave();
  assert.equal(handled.indexOf('b'), 1, handled.join(' '));
});

test("a tenant's requests that wait are light: those of a quick tenant are handled together in one turn, not a turn each", async () => {
  const turns = new TenantTurns();
  const loop = countLoopTurns();
  const turnOf: number[] = [];
  const handle = async (i: number) => {
    const leave = await turns.enter('a');
    turnOf[i] = loop.turn;
    setImmediate(leave);
  };
  await Promise.all(Array.from({ length: 10 }, (_, i) => handle(i)));
  loop.stop();
  // the two at once, then the eight that waited, together: a turn each made eight (a process
  // descheduled past the light slice, or a first run's compiling, may split them once or twice)
  assert.ok(new Set(turnOf.slice(2)).size <= 3, turnOf.join(' '));
});
