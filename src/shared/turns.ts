// Work that comes in batches takes the event loop one piece a turn, and owners take turns. Runs
// started together end together: a tenant's burst of 1-s runs all ended in the same timers phase
// a second later, and their ends (records written, threads deleted, claims released, the next
// runs started) ran back to back, 10-35 ms with no socket read, so another tenant's request
// waited behind all of them (issue 83: B's read p99 under A's flood). A piece that waits its turn
// here starts in a turn of its own, after the loop has polled its sockets. Pieces are queued by
// owner (a tenant) and the owners with pieces waiting are served in rotation, each owner's pieces
// in the order they asked: another owner's piece waits for one of a flooding owner's, never for
// its whole queue.

/** The owners with pieces waiting, in the order they are served; each owner's pieces in order. */
const queues = new Map<string, (() => void)[]>();
let pumping = false;

function pump(): void {
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
  // queued from inside an immediate, the next one runs in the loop's next turn, after its poll
  if (queues.size > 0) setImmediate(pump);
  else pumping = false;
  next();
}

/** Resolves in a turn of the event loop of its own, after `owner`'s pieces that asked before it and one of each other owner's waiting. */
export function ownTurn(owner = ''): Promise<void> {
  return new Promise((resolve) => {
    const pieces = queues.get(owner);
    if (pieces) pieces.push(resolve);
    else queues.set(owner, [resolve]);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}
