// Which of the embedded store's collections keep their values on disk (issue 91), and what each
// keeps in memory per record: the fields its indexes look up and its lists are ordered by, so
// that finding and ordering a thread's records reads none of them. These are the bulk of what a
// run stores (its checkpoints, their channel values and pending writes: tens of KB a run of the
// `agent` graph) and are read a thread at a time; the records read across every thread (threads,
// runs, assistants, crons) stay whole in memory.
export const PAGED_COLLECTIONS: Readonly<Record<string, readonly string[]>> = {
  checkpoints: ['thread_id', 'thread_ns', 'checkpoint_id'],
  checkpoint_writes: ['thread_id', 'cp_key'],
  checkpoint_values: ['thread_id'],
  plain_checkpoints: ['thread_id'],
};

/** The default budget of paged values kept in memory once read or written: 64 MB of their JSON (AGENTPLANE_STORE_CACHE_MB). */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
