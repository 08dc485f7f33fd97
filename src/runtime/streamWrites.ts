// When the server's streams (SSE responses, protocol WebSockets) write the frames they hold.
// Issue 67: with 1,000 subscribers, a thread's event is a frame for each of its subscribers,
// and what the main thread spent per event per subscriber was the write itself (a system call)
// and what each stream did to schedule it. So:
// - every stream with frames in a turn of the event loop is written by one immediate at the
//   end of that turn, not one immediate per stream (made and cleared per stream per event);
// - a stream that wrote less than COALESCE_MS ago writes again COALESCE_MS later, with every
//   frame it got meanwhile: a run's events, which arrive a few milliseconds apart, go out in
//   fewer writes. A stream that has been quiet writes at the end of the turn, as before, so a
//   run's first event (or an answer after a pause) waits for nothing; a frame waits at most
//   COALESCE_MS more than it did.

/** A stream that holds frames to write. */
export interface HeldFrames {
  /** Writes the frames it holds (the stream was taken off the schedule before). */
  write(): void;
  /** When it last wrote (performance.now()), or -Infinity. */
  lastWrite: number;
}

/** How long after a write a stream's next frames wait for more (ms). */
export const COALESCE_MS = 10;

let thisTurn = new Set<HeldFrames>();
let later = new Set<HeldFrames>();
let turn: NodeJS.Immediate | undefined;
let tick: NodeJS.Timeout | undefined;

function writeAll(streams: Set<HeldFrames>): void {
  const now = performance.now();
  for (const stream of streams) {
    stream.lastWrite = now;
    stream.write();
  }
}

function endOfTurn(): void {
  turn = undefined;
  const due = thisTurn;
  thisTurn = new Set();
  writeAll(due);
}

function afterTick(): void {
  tick = undefined;
  const due = later;
  later = new Set();
  writeAll(due);
}

/** Asks for the stream's frames to be written (at the end of this turn, or COALESCE_MS after its last write). */
export function scheduleWrite(stream: HeldFrames): void {
  if (thisTurn.has(stream) || later.has(stream)) return;
  if (performance.now() - stream.lastWrite >= COALESCE_MS) {
    thisTurn.add(stream);
    turn ??= setImmediate(endOfTurn);
  } else {
    later.add(stream);
    tick ??= setTimeout(afterTick, COALESCE_MS);
  }
}

/** Takes the stream off the schedule: it writes (or ends) by itself. */
export function unscheduleWrite(stream: HeldFrames): void {
  thisTurn.delete(stream);
  later.delete(stream);
}
