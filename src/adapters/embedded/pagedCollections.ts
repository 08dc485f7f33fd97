// Which of the embedded store's collections keep their values on disk (issue 91), and what each
// keeps in memory per record: the fields its indexes look up, its lists are ordered by, and its
// scans across every record read (ListOptions.fields), so that finding, ordering and scanning
// reads none of them from disk. Checkpoints, their channel values and pending writes are the
// bulk of what a run stores (tens of KB a run of the `agent` graph) and are read a thread at a
// time; a run record (~15 KB: its kwargs and input) and a thread record (its last `values`) are
// read one at a time or a page at a time, and scanned by the fields kept here. The records read
// across every record whole (assistants, crons) stay whole in memory.
import { CHECKPOINT_KEY_SEPARATOR } from '../../domain/agent/checkpoints/checkpointer.ts';

export const PAGED_COLLECTIONS: Readonly<Record<string, readonly string[]>> = {
  checkpoints: ['thread_id', 'thread_ns', 'checkpoint_id'],
  checkpoint_writes: ['thread_id', 'cp_key'],
  checkpoint_values: ['thread_id'],
  plain_checkpoints: ['thread_id'],
  // run-storage/collectionRunStore.ts: by thread and status (indexes), owner scans, an assistant's summaries
  runs: ['run_id', 'thread_id', 'status', 'owner', 'assistant_id', 'created_at', 'updated_at'],
  // collectionThreads.ts: search by status (index), owner, ids and metadata, sorted by any of these; expiry by ttl
  threads: ['thread_id', 'status', 'owner', 'created_at', 'updated_at', 'metadata', 'ttl'],
};

/**
 * Fields of paged records written once, with the record's last write, and not again as the same
 * object: the store does not remember their text for a next write of the same part
 * (writtenParts.ts rememberParts). A run's trace is put with its final record; remembered, its
 * text (~3.5 thousand characters, two bytes each, for a LangGraph echo run) lived as long as
 * the record stayed cached, for no write, and was copied twice by the main thread's scavenges
 * (issue 87). A thread's values, written at a run's end and again at the next run's enqueue,
 * are remembered.
 */
export const WRITTEN_ONCE: Readonly<Record<string, readonly string[]>> = {
  runs: ['trace'],
};

/**
 * Kept values that few records hold at a time: each saved index lists in its head the records
 * holding one, so that a look-up of one is answered before the collection's records are loaded
 * after a start (journalStore.ts). A start's run recovery lists the runs left pending or running,
 * which would otherwise load every run there is before the server answers.
 */
export const FEW_VALUES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  runs: { status: ['pending', 'running'] },
};

/** The default budget of paged values kept in memory once read or written: 64 MB of the heap they cost (AGENTPLANE_STORE_CACHE_MB). */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The paged collections whose records are kept in groups, a thread's together (recordGroups.ts),
 * each with the fields whose value names its group. A thread's checkpoints, pending writes and
 * channel values are 17 records a run of the `agent` graph, read a thread at a time: memory
 * keeps one entry per thread and collection for them, and a thread's records only while it is
 * in use. Each id and each of these fields begins with the thread's id, up to the separator of
 * checkpoint keys; the group is that beginning (groupOf).
 */
export const GROUPED_COLLECTIONS: Readonly<Record<string, readonly string[]>> = {
  checkpoints: ['thread_id', 'thread_ns'],
  checkpoint_writes: ['thread_id', 'cp_key'],
  checkpoint_values: ['thread_id'],
};

/** The group a record's id, or a value naming its group, belongs to: its beginning up to the separator of checkpoint keys. */
export function groupOf(key: string): string {
  const at = key.indexOf(CHECKPOINT_KEY_SEPARATOR);
  return at < 0 ? key : key.slice(0, at);
}
