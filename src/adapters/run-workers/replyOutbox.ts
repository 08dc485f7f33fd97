// The main thread's answers to a run worker's store calls, posted together once per turn of
// the event loop. A LangGraph run's checkpoint writes arrive in bursts and each is answered
// (one answer per call, also when several were made as one write, orderedCalls.ts): posted one
// by one that was ~5 posts a run on 100 threads, each a structured clone, a wake-up of the
// worker and a `message` event there, for answers the worker mostly does not wait for. They
// now leave in one `replies` message at the end of the turn (setImmediate: after the I/O and
// the promise reactions that made them), in the order they were given; any other message to
// the worker (a run, an abort, a `go`) first sends the answers waiting, so the worker sees
// everything in the order the main thread posted it. An answer's value is the store's: a
// record the store keeps frozen or an object made for this call, which nothing changes
// before the turn ends.
import type { ToWorker } from './protocol.ts';

type Reply = Extract<ToWorker, { type: 'reply' }>;

export class ReplyOutbox {
  private waiting: Reply[] = [];

  constructor(
    /** Posts to the worker (the pool's, which drops what is posted to a worker that ended). */
    private readonly post: (message: ToWorker) => void,
    /** When the turn ends (setImmediate; a test steps it by hand). */
    private readonly atTurnEnd: (flush: () => void) => void = (flush) => void setImmediate(flush),
  ) {}

  /** An answer to a call: sent with the others of this turn. */
  reply(message: Reply): void {
    this.waiting.push(message);
    if (this.waiting.length === 1) this.atTurnEnd(() => this.flush());
  }

  /** Any other message: sent now, after the answers waiting. */
  send(message: ToWorker): void {
    this.flush();
    this.post(message);
  }

  /** Sends the answers waiting: one alone as it is, several as one `replies`. */
  flush(): void {
    const replies = this.waiting;
    if (replies.length === 0) return;
    this.waiting = [];
    this.post(replies.length === 1 ? replies[0]! : { type: 'replies', replies });
  }
}
