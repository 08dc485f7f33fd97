// Which run worker holds a thread's newest checkpoint in its own memory. A worker's checkpointer
// keeps the end state of a thread's run that ended well (StoreCheckpointer.endedHead); the main
// thread, which makes every write of the store, knows whether anything wrote the thread's
// checkpoints since that run's last write (the store's checkpoint mark). While nothing did, the
// thread's next run in that worker takes the newest checkpoint from there (KnownReads
// .ownCheckpoint) instead of the main thread reading it for the run and sending it: on the
// embedded store a run worker's checkpoints are not held by the main thread (textPut.ts), so that
// read would parse them back from the journal at every run (issues 86, 87).

export class OwnHeads {
  /** Per thread, the worker whose ordered write of its checkpoints was made last, and the mark it left. */
  private readonly written = new Map<string, Held>();
  /** Per thread, the worker holding its newest checkpoint, and the mark that holds while nothing else writes it. */
  private readonly held = new Map<string, Held>();

  /** `mark`: the thread's checkpoint mark now (undefined: not known, so no worker is said to hold it). */
  constructor(
    private readonly mark: (thread: string) => number | undefined,
    private readonly limit = 4096,
  ) {}

  /** The worker's ordered checkpoint writes of the thread were made, leaving `mark`. */
  wrote(thread: string, worker: number, mark: number | undefined): void {
    if (mark === undefined) this.written.delete(thread);
    else this.put(this.written, thread, { worker, mark });
  }

  /** A run of the thread ended in the worker, its writes made: well (the worker kept its end state), or not. */
  ended(thread: string, worker: number, well: boolean): void {
    this.held.delete(thread);
    const last = this.written.get(thread);
    if (well && last && last.worker === worker && this.mark(thread) === last.mark) this.put(this.held, thread, last);
  }

  /** Whether the worker holds the thread's newest checkpoint: its last run there ended well and nothing wrote the thread's checkpoints since. */
  holds(thread: string, worker: number): boolean {
    const held = this.held.get(thread);
    return held !== undefined && held.worker === worker && this.mark(thread) === held.mark;
  }

  private put(map: Map<string, Held>, thread: string, held: Held): void {
    map.delete(thread);
    map.set(thread, held);
    if (map.size > this.limit) map.delete(map.keys().next().value!);
  }
}

interface Held {
  worker: number;
  mark: number;
}
