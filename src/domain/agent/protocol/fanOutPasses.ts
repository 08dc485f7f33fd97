// When the threads' feeds hand their new events to their pushed readers (issue 87): in passes,
// one per feed with new events, each pass visiting the feed's readers in turn, and every pass
// due made by one immediate at the end of the turn in which the events came (a run's step
// publishes several at once: they go out together). A pass over a thousand subscribers is a
// thousand socket writes; it is cut into slices of about PASS_SLICE_MS, the event loop getting
// its poll phase (requests, the run workers' messages) between two, so no fan-out holds a
// request for longer than a slice.

/** How long one slice of passes may hold the event loop, in ms. */
export const PASS_SLICE_MS = 2;
/** How many readers are visited between two looks at the clock. */
const VISITS_PER_LOOK = 8;

/** A feed as its passes see it. */
export interface PassFeed<R> {
  pushed: Set<R>;
  /** Hands a reader what the feed has for it; `batches` lives for one pass (readers at one position share a batch). */
  visit(reader: R, batches: Map<unknown, unknown>): void;
  /** The pass under way or due, if any (its readers are those pushed when it begins). */
  pass?: { readers?: R[]; at: number; batches: Map<unknown, unknown>; again: boolean };
}

const due: PassFeed<unknown>[] = [];
let scheduled: NodeJS.Immediate | undefined;

/** Asks for a pass over the feed's pushed readers (one more after the one under way, if any). */
export function schedulePass<R>(feed: PassFeed<R>): void {
  if (feed.pass) {
    // a pass not begun yet will see it all
    if (feed.pass.readers) feed.pass.again = true;
    return;
  }
  feed.pass = { at: 0, batches: new Map(), again: false };
  due.push(feed as PassFeed<unknown>);
  scheduled ??= setImmediate(runPasses);
}

function runPasses(): void {
  const until = performance.now() + PASS_SLICE_MS;
  let visits = 0;
  while (due.length) {
    const feed = due[0]!;
    const pass = feed.pass!;
    const readers = (pass.readers ??= [...feed.pushed]);
    while (pass.at < readers.length) {
      feed.visit(readers[pass.at++], pass.batches);
      visits += 1;
      if (visits % VISITS_PER_LOOK === 0 && pass.at < readers.length && performance.now() >= until) {
        scheduled = setImmediate(runPasses);
        return;
      }
    }
    due.shift();
    feed.pass = undefined;
    // events came during the pass: the readers it visited early are given them by another
    if (pass.again) schedulePass(feed);
  }
  scheduled = undefined;
}
