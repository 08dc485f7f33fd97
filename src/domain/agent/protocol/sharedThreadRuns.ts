// A thread's protocol runs as the readers of its event stream see them, listed once per
// thread per change and shared by all of them: a thread that many subscribers follow (a
// dashboard, a team's pages) would otherwise have its runs listed again by every subscriber
// at every run (issue 57's fan-out profile: a fifth of the server's time). A listing is
// dropped when a run is next queued on the thread (the event log's wake-up, registered before
// the listing is read, so a run queued meanwhile still drops it), and when its last reader
// goes. Records in a listing may be older than the store's (a run that has finished since
// lacks its protocol numbers): readers only use those to skip what is before `since`, and a
// run without them is read from its log instead, so an older record costs time, never events.
import type { RunStore } from '../../ports/runStore.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { ownerOf, type RunRecord } from '../records.ts';
import { isProtocolRun } from './plainRuns.ts';
import { quietAbort } from '../../../shared/quietAbort.ts';

interface Listing {
  runs: Promise<RunRecord[]>;
  byOwner: Map<string, Promise<RunRecord[]>>;
  /** Settles when a run is next queued on the thread after the listing was begun (or the listing is dropped). */
  queued: Promise<void>;
  stop: AbortController;
}

interface Entry {
  readers: number;
  listing?: Listing;
}

/** One reader's view: the shared listing, and which one it last read. */
export interface ThreadRunsReader {
  /** The owner's protocol runs on the thread, in receipt order. */
  read(owner: string): Promise<RunRecord[]>;
  /**
   * Settles when a run is queued on the thread after the listing last read was begun (so none
   * is missed between a read and the wait), or when `interrupt` is called. The readers of a
   * thread share the listing's one registration with the event log: a reader waiting makes no
   * AbortSignal of its own (issue 67: a signal per reader per run, its listeners and its
   * abort's DOMException, were 4 s of 60 with 1,000 subscribers).
   */
  nextRun(): Promise<void>;
  /** Ends the wait of `nextRun` at once (the reader is leaving). */
  interrupt(): void;
  /** The reader was woken by a run queued on the thread: what it read before is not to be read again. */
  woke(): void;
  close(): void;
}

/** The owner's protocol runs on the thread, in receipt order, listed now. */
export async function listProtocolRuns(runs: ThreadRuns, threadId: string, owner: string): Promise<RunRecord[]> {
  return ofOwner(await listAll(runs, threadId), owner);
}

/** What the listings read: a thread's runs in receipt order. */
export type ThreadRuns = Pick<RunStore, 'onThread'>;

async function listAll(runs: ThreadRuns, threadId: string): Promise<RunRecord[]> {
  return (await runs.onThread(threadId)).filter(isProtocolRun);
}

const ofOwner = (runs: RunRecord[], owner: string) => runs.filter((run) => ownerOf(run) === owner);

export class SharedThreadRuns {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly runs: ThreadRuns,
    private readonly eventLog: Pick<RunEventLog, 'nextRunOn'>,
  ) {}

  reader(threadId: string): ThreadRunsReader {
    let entry = this.entries.get(threadId);
    if (!entry) this.entries.set(threadId, (entry = { readers: 0 }));
    entry.readers += 1;
    const held = entry;
    let last: Listing | undefined;
    let closed = false;
    let interrupted = false;
    let wake: (() => void) | undefined;
    return {
      read: (owner) => {
        last = held.listing ??= this.list(threadId, held);
        let own = last.byOwner.get(owner);
        if (!own) last.byOwner.set(owner, (own = last.runs.then((runs) => ofOwner(runs, owner))));
        return own;
      },
      nextRun: () =>
        new Promise<void>((resolve) => {
          if (interrupted || !last) return resolve();
          wake = resolve;
          void last.queued.then(resolve);
        }),
      interrupt: () => {
        interrupted = true;
        wake?.();
      },
      woke: () => {
        // the first reader woken drops the listing it read; the others find the new one
        if (last && held.listing === last) this.drop(held, last);
      },
      close: () => {
        if (closed) return;
        closed = true;
        held.readers -= 1;
        if (held.readers > 0) return;
        if (held.listing) this.drop(held, held.listing);
        if (this.entries.get(threadId) === held) this.entries.delete(threadId);
      },
    };
  }

  private list(threadId: string, entry: Entry): Listing {
    const stop = new AbortController();
    // registered before the listing is read: a run queued while it is read drops it
    const queued = this.eventLog.nextRunOn(threadId, stop.signal);
    const listing: Listing = { runs: listAll(this.runs, threadId), byOwner: new Map(), queued, stop };
    void queued.then(() => this.drop(entry, listing));
    // a failed listing is not kept: the next read lists again
    listing.runs.catch(() => this.drop(entry, listing));
    return listing;
  }

  private drop(entry: Entry, listing: Listing): void {
    if (entry.listing === listing) entry.listing = undefined;
    quietAbort(listing.stop);
  }
}
