// A thread's protocol events (POST/GET /threads/{id}/stream/events): the events of its
// protocol runs, one run after the other in receipt order, numbered for the thread, for as
// long as the reader stays. Like every stream it only reads the runs' event logs (on
// PostgreSQL shared by the replicas), and a replay from `since` reads only what it returns:
// finished runs before it are skipped by the numbers on their records, and a run's log is
// read from the position `since` names. A thread's subscribers do not each read this: one
// feed per thread reads it for them (threadFeed.ts); a reader behind the feed's window reads it
// by itself. Those readers share one listing of the thread's runs (sharedThreadRuns.ts) and,
// through the log's entries, each event (events.ts: `framed`).
import type { RunEventLog } from '../../ports/runEventLog.ts';
import type { RunRecord } from '../records.ts';
import { framed, matchesFilter, PROTOCOL_LOG_EVENT, storedOfText, type EventFilter, type ProtocolEvent, type StoredProtocolEvent } from './events.ts';
import { listProtocolRuns, type SharedThreadRuns, type ThreadRuns } from './sharedThreadRuns.ts';
import { JsonText } from '../../../shared/jsonText.ts';
import { runningLifecycle } from './lifecycle.ts';

export interface ThreadEventDeps {
  runs: ThreadRuns;
  eventLog: RunEventLog;
  /** The thread's protocol runs as its stream's readers share them (listed once per thread per change). */
  threadRuns: SharedThreadRuns;
}

export interface ThreadEventOptions {
  /** Whose runs are read: another owner's thread reads as one with no runs. */
  owner: string;
  signal?: AbortSignal;
  /** Stop after the runs there are now and their events so far, instead of waiting for more (their logs read as they are). */
  present?: boolean;
}

/** The owner's protocol runs on the thread, in receipt order. */
export function protocolRuns(deps: ThreadEventDeps, threadId: string, owner: string): Promise<RunRecord[]> {
  return listProtocolRuns(deps.runs, threadId, owner);
}

/** The owner's protocol events of the thread that `filter` lets through, after `filter.since`. */
export async function* threadProtocolEvents(
  deps: ThreadEventDeps,
  threadId: string,
  filter: EventFilter,
  options: ThreadEventOptions,
): AsyncGenerator<ProtocolEvent> {
  const channels = { ...filter, since: undefined };
  for await (const event of threadLogEvents(deps, threadId, filter.since ?? 0, options)) if (matchesFilter(channels, event)) yield event;
}

/** Every protocol event of the owner's runs on the thread after `since`, read from the runs' logs. */
export async function* threadLogEvents(deps: ThreadEventDeps, threadId: string, since: number, options: ThreadEventOptions): AsyncGenerator<ProtocolEvent> {
  const { signal } = options;
  let cursor: string | undefined;
  const shared = deps.threadRuns.reader(threadId);
  // one listener for the reader's life: its leaving ends a wait for the next run at once
  const leave = () => shared.interrupt();
  signal?.addEventListener('abort', leave, { once: true });
  try {
    while (!signal?.aborted) {
      // the wait below is for a run queued after the listing read here was begun, so a run
      // queued meanwhile still wakes us
      const runs = await shared.read(options.owner);
      const next = runs.find((run) => (cursor === undefined || run.run_id > cursor) && (run.protocol_seq === undefined || run.protocol_seq.end > since));
      if (!next || !(await deps.eventLog.has(next.run_id))) {
        if (next) cursor = next.run_id;
        else if (options.present) return;
        else {
          await shared.nextRun();
          shared.woke();
        }
        continue;
      }
      for await (const event of runEvents(deps.eventLog, next, since, { signal, present: options.present })) {
        since = Math.max(since, event.seq);
        yield event;
      }
      cursor = next.run_id;
    }
  } finally {
    signal?.removeEventListener('abort', leave);
    shared.close();
  }
}

/** One protocol run's events numbered for its thread, after `since` (with `present`, those there are now). */
async function* runEvents(
  eventLog: RunEventLog,
  run: RunRecord,
  since: number,
  options: { signal?: AbortSignal; present?: boolean },
): AsyncGenerator<ProtocolEvent> {
  const { signal, present } = options;
  let base = run.protocol_seq?.base;
  if (base === undefined) {
    // a run not finished yet: its start names its number (the head of its log)
    const head = eventLog.join(run.run_id, { signal, present });
    const first = await head.next();
    await head.return(undefined);
    const start = first.done ? undefined : (first.value.data as { seq_base?: number } | null);
    if (start?.seq_base === undefined) return;
    base = start.seq_base;
  }
  const lastEventId = since > base ? String(since - base - 1) : undefined;
  for await (const entry of eventLog.join(run.run_id, { lastEventId, signal, present })) {
    if (entry.event === 'end') return;
    const n = Number(entry.id);
    let stored: StoredProtocolEvent | undefined;
    if (entry.event === PROTOCOL_LOG_EVENT) stored = entry.data instanceof JsonText ? storedOfText(entry.data) : (entry.data as StoredProtocolEvent);
    else if (entry.event === 'metadata' && n === 0)
      stored = runningLifecycle(run, (entry.data as { timestamp?: number }).timestamp ?? Date.parse(run.created_at));
    if (stored) yield framed(stored, base + 1 + n);
  }
}
