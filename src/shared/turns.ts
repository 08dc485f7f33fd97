// Work that comes in batches takes the event loop one piece a turn. Runs started together end
// together: a tenant's burst of 1-s runs all ended in the same timers phase a second later, and
// their ends (records written, threads deleted, claims released, the next runs started) ran back
// to back, 10-35 ms with no socket read, so another tenant's request waited behind all of them
// (issue 83: B's read p99 under A's flood). A piece that waits its turn here starts in a turn of
// its own, after the loop has polled its sockets, whatever else is waiting.

const waiting: (() => void)[] = [];
let pumping = false;

function pump(): void {
  const next = waiting.shift();
  // queued from inside an immediate, the next one runs in the loop's next turn, after its poll
  if (waiting.length > 0) setImmediate(pump);
  else pumping = false;
  next?.();
}

/** Resolves in a turn of the event loop of its own, after those that asked before it. */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}
