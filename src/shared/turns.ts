// Work that comes in batches takes the event loop one piece at a time, and owners take turns. Runs
// started together end together: a tenant's burst of 1-s runs all ended in the same timers phase
// a second later, and their ends (records written, threads deleted, claims released, the next
// runs started) ran back to back, 10-35 ms with no socket read, so another tenant's request
// waited behind all of them (issue 83). A piece that waits its turn here starts after the loop
// has polled its sockets. Pieces are queued by owner (a tenant) and the owners with pieces
// waiting are served in rotation, each owner's pieces in the order they asked: another owner's
// piece waits for one of a flooding owner's, never for its whole queue.
//
// A turn of the loop serves one piece of each owner waiting as it begins, in rotation, until the
// turn has held the loop for TURN_SLICE_MS: one owner's pieces still take a turn each, but the
// owners waiting together no longer each wait for the others' turns (issue 87: under the fan-out's
// runs the bench tenant's requests and the runs' starts and ends, two owners, waited a loaded
// turn each for one another, a new run's stream behind both).

/** How long the pieces of one turn may hold the event loop before the rest wait for its next turn, in ms. */
export const TURN_SLICE_MS = 2;

/** How long an owner's light pieces may follow one another in one turn, from its first piece of the turn, in ms. */
export const LIGHT_SLICE_MS = 0.5;

interface Piece {
  readonly resolve: () => void;
  readonly light: boolean;
  readonly rank: TurnRank;
}

/**
 * Which of an owner's pieces goes first (lower first, in the order they asked within a rank): a
 * run's start, then a run's end, then the rest (its requests, its lock's waiters). Run workers
 * wait for the first two: behind the owner's requests a run's start waited for every create the
 * SDK's 64 connections had queued, and behind the ends of the runs that ended together for all
 * of them, while its worker had nothing to run for a quarter of a 100-thread round (issue 86,
 * session 47 in scripts/bench/findings.md). Another owner's pieces are not concerned: owners are
 * served in rotation whatever their pieces' ranks.
 */
export type TurnRank = 0 | 1 | 2;
export const RUN_START: TurnRank = 0;
export const RUN_END: TurnRank = 1;
const OTHER: TurnRank = 2;

/** The owners with pieces waiting, in the order they are served; each owner's pieces in order. */
const queues = new Map<string, Piece[]>();
let pumping = false;
/** This turn's owners still to serve (those waiting as it began), and when its slice ends. */
const turnOwners = new Set<string>();
let sliceEnds = 0;
/** When each owner served in this turn had its first piece of the turn begun. */
const servedSince = new Map<string, number>();

function pump(): void {
  // refilled, not made anew: a loaded loop pumps every turn
  turnOwners.clear();
  for (const owner of queues.keys()) turnOwners.add(owner);
  servedSince.clear();
  sliceEnds = performance.now() + TURN_SLICE_MS;
  serve();
}

/** Serves the first owner in rotation; the next owner, if any, once the piece's microtasks have run. */
function serve(): void {
  // a Map iterates in insertion order: the first owner is served, then goes to the back
  const first = queues.entries().next();
  if (first.done) {
    pumping = false;
    return;
  }
  const [owner, pieces] = first.value;
  const next = pieces.shift()!;
  queues.delete(owner);
  if (pieces.length > 0) queues.set(owner, pieces);
  turnOwners.delete(owner);
  if (!servedSince.has(owner)) servedSince.set(owner, performance.now());
  next.resolve();
  // the piece runs in the microtasks its resolve queued; a tick queued from a microtask runs once
  // the microtask queue is empty, so the clock is read after the piece (up to its next real wait)
  queueMicrotask(() => process.nextTick(afterPiece));
}

function afterPiece(): void {
  if (queues.size === 0) {
    pumping = false;
    return;
  }
  const [owner, pieces] = queues.entries().next().value!;
  const now = performance.now();
  // queued from inside an immediate, the next one runs in the loop's next turn, after its poll
  if (now < sliceEnds && (turnOwners.has(owner) || followsInTurn(owner, pieces[0]!, now))) serve();
  else setImmediate(pump);
}

/** Whether `piece` may follow its owner's last in this turn: it is light, and the owner's pieces of the turn are young. */
function followsInTurn(owner: string, piece: Piece, now: number): boolean {
  const since = servedSince.get(owner);
  return piece.light && since !== undefined && now - since < LIGHT_SLICE_MS;
}

/**
 * Resolves in a turn of the event loop after `owner`'s pieces of its rank (or an earlier one) that
 * asked before it and one of each other owner's waiting; never in a turn with another of
 * `owner`'s pieces, unless `light` and the owner's pieces of that turn began under LIGHT_SLICE_MS ago.
 */
export function ownTurn(owner = '', light = false, rank: TurnRank = OTHER): Promise<void> {
  return new Promise((resolve) => {
    const piece: Piece = { resolve, light, rank };
    const pieces = queues.get(owner);
    if (!pieces) queues.set(owner, [piece]);
    else {
      // after the owner's pieces of its rank and before those of a later one
      let at = pieces.length;
      while (at > 0 && pieces[at - 1]!.rank > rank) at -= 1;
      pieces.splice(at, 0, piece);
    }
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}
