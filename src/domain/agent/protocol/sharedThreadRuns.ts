// A thread's protocol runs as the readers of its event stream see them, listed once per
// thread per change and shared by all of them: a thread that many subscribers follow (a
// dashboard, a team's pages) would otherwise have its runs listed again by every subscriber
// at every run (issue 57's fan-out profile: a fifth of the server's time). A listing is
// dropped when a run is next queued on the thread (the event log's wake-up, registered before
// the listing is read, so a run queued meanwhile still drops it), and when its last reader
// goes. Records in a listing may be older than the store's (a run that has finished since
// lacks its protocol numbers): readers only use those to skip what is before `since`, and a
// run without them is read from its log instead, so an older record costs time, never events.
// A thread's listing after its first is made from the one before: the thread's run ids (what
// memory keeps, no record read), the records of runs already listed with their final numbers
// kept, and only the others read (the new runs, those not finished then): listing every
// record again at every run grew with the thread's history (issue 87: 0.44 ms of the main
// thread a run at ~100 runs a thread, more than any other piece of a protocol run's own).
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
  /**
   * What the listings read of the thread's runs that will not change for a reader: a protocol
   * run's record once it has its numbers (its end wrote them), null for a run that is not a
   * protocol run. A run not here is read at the next listing.
   */
  known?: Map<string, RunRecord | null>;
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

/** What the shared listings read: a thread's runs, and after the first listing its ids and the runs not known yet. */
export type ListedRuns = Pick<RunStore, 'onThread' | 'idsOnThread' | 'get'>;

async function listAll(runs: ThreadRuns, threadId: string): Promise<RunRecord[]> {
  return (await runs.onThread(threadId)).filter(isProtocolRun);
}

/** What of a run a later listing keeps instead of reading it again (Entry.known); undefined: read it again. */
const knownOf = (run: RunRecord): RunRecord | null | undefined => (!isProtocolRun(run) ? null : run.protocol_seq !== undefined ? run : undefined);

/** The thread's protocol runs in receipt order, read from what the listings before knew (`known`, which this renews). */
async function listFrom(runs: ListedRuns, threadId: string, entry: Entry): Promise<RunRecord[]> {
  const before = entry.known;
  const known = new Map<string, RunRecord | null>();
  const listed: RunRecord[] = [];
  if (!before) {
    for (const run of await runs.onThread(threadId)) {
      const kept = knownOf(run);
      if (kept !== undefined) known.set(run.run_id, kept);
      if (kept !== null) listed.push(run);
    }
  } else {
    const ids = await runs.idsOnThread(threadId);
    const fresh = await Promise.all(ids.filter((id) => !before.has(id)).map((id) => runs.get(id)));
    let next = 0;
    const read = ids.map((id) => (before.has(id) ? before.get(id)! : fresh[next++]));
    for (const [i, run] of read.entries()) {
      // a run deleted since its id was read is left out, as the full listing would
      if (run === undefined) continue;
      const kept = run === null ? null : knownOf(run);
      if (kept !== undefined) known.set(ids[i]!, kept);
      if (run !== null && kept !== null) listed.push(run);
    }
  }
  entry.known = known;
  return listed;
}

const ofOwner = (runs: RunRecord[], owner: string) => runs.filter((run) => ownerOf(run) === owner);

export class SharedThreadRuns {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly runs: ListedRuns,
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
    const listing: Listing = { runs: listFrom(this.runs, threadId, entry), byOwner: new Map(), queued, stop };
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
