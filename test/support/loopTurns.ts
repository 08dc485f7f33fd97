// Counts the turns of this process's event loop: an immediate queued from an immediate runs in
// the loop's next turn, after its poll. Tests that work is spread over turns (one piece a turn)
// read `turn` as each piece runs.
export interface LoopTurns {
  /** Turns counted so far. */
  readonly turn: number;
  stop(): void;
}

export function countLoopTurns(): LoopTurns {
  let turn = 0;
  let counting = true;
  const count = () => {
    turn += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    get turn() {
      return turn;
    },
    stop: () => void (counting = false),
  };
}
