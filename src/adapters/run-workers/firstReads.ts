// What a run reads of its thread first, read by the main thread before it hands the run to
// a worker and sent with it (KnownReads, read through the run store: RunStore.firstReads). Every run starts by
// reading its thread: the plain-state head, and for a LangGraph graph the newest checkpoint.
// Asked from the worker, each is a round trip the run waits for (a post each way and a wake-up
// of the other thread); sent with the run, none is. The worker's plain-state store and
// checkpointer take them as known for that run only (PlainStateStore.knowHead,
// StoreCheckpointer.hold), and a run that reads otherwise (a fork, a graph of another kind)
// reads as before.
import type { KnownReads } from '../../domain/agent/graphs/runContext.ts';

export type { FirstReadsKind } from '../../domain/agent/graphs/runContext.ts';

/**
 * What tells two first reads apart: the plain head's and the newest checkpoint's ids (an id
 * names one state) and that checkpoint's pending writes. A run started ahead of its claim
 * (runsAhead.ts) assumed reads of one key; it may go on only if the main thread then reads the same.
 */
export function readsKey(known: KnownReads): string {
  const newest = known.newestCheckpoint;
  return JSON.stringify([
    plainKey(known),
    newest === undefined ? 'unknown' : (newest?.record.checkpoint_id ?? null),
    (newest?.writes ?? []).map((w) => [w.task_id, w.idx, w.channel, w.value]),
  ]);
}

const plainKey = (known: KnownReads) => (known.plainHead === undefined ? 'unknown' : (known.plainHead?.checkpoint_id ?? null));

/**
 * Whether a run started ahead on reads of key `assumed` read what the main thread reads now
 * (`known`). The worker that started it assumed its own end state of the thread's last run: where
 * the main thread found that to be the newest checkpoint still (`ownCheckpoint`), only the plain
 * head is told apart.
 */
export function sameReads(assumed: string, known: KnownReads): boolean {
  if (!known.ownCheckpoint) return assumed === readsKey(known);
  const [plain, newest] = JSON.parse(assumed) as [unknown, unknown];
  return newest !== 'unknown' && plain === plainKey(known);
}
