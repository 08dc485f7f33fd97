// When the server's streams (SSE responses, protocol WebSockets) write the frames they hold:
// at the end of the turn of the event loop in which they got them, every stream with frames
// written by one immediate, not one immediate per stream (issue 67: with 1,000 subscribers a
// thread's event had each of its streams make an immediate, and clear it when it ran).
//
// Not gathered over a window: under the bench's fan-out a stream's frames come in clumps,
// each clump already in one turn (and one write), and clumps 100 ms and more apart; a window
// of 10 ms would have gathered ~3% of the frames into fewer writes, delaying each by up to
// the window (scripts/bench/findings.md, branch fanout2).

/** A stream that holds frames to write. */
export interface HeldFrames {
  /** Writes the frames it holds (the stream was taken off the schedule before). */
  write(): void;
}

let thisTurn = new Set<HeldFrames>();
let turn: NodeJS.Immediate | undefined;

function endOfTurn(): void {
  turn = undefined;
  const due = thisTurn;
  thisTurn = new Set();
  for (const stream of due) stream.write();
}

/** Asks for the stream's frames to be written at the end of this turn. */
export function scheduleWrite(stream: HeldFrames): void {
  thisTurn.add(stream);
  turn ??= setImmediate(endOfTurn);
}

/** Takes the stream off the schedule: it writes (or ends) by itself. */
export function unscheduleWrite(stream: HeldFrames): void {
  thisTurn.delete(stream);
}
