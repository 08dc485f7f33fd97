// The threads as the agent domain keeps them: one thread read, stored, changed by its id, and
// the named searches and counts over one owner's threads. Kept in the embedded store's
// collection (adapters/embedded/collectionThreads.ts) and, on PostgreSQL, in the threads
// table with the searches in SQL over its columns and indexes (adapters/postgres/pgThreads.ts),
// so a search or count reads one owner's page, never every thread.
import type { ThreadStatus } from '../../../generated/agent-server/types.gen.ts';
import type { ThreadRecord } from '../agent/records.ts';
import type { WriteOp } from './store.ts';

/** Which threads: always one owner's (see ownerOf in agent/records.ts). */
export interface ThreadFilter {
  owner: string;
  status?: ThreadStatus;
  /** Top-level metadata entries the thread's metadata holds with equal values. */
  metadata?: Record<string, unknown>;
  /** Only these ids. */
  ids?: string[];
}

/** The fields a thread search sorts by (ties: creation order, reversed with `desc`). */
export type ThreadSortField = 'thread_id' | 'status' | 'created_at' | 'updated_at';

export interface ThreadPage {
  sortBy: ThreadSortField;
  order: 'asc' | 'desc';
  offset: number;
  /** Every match from `offset` on when absent. */
  limit?: number;
}

/** A thread's record without its values (ThreadsRepository.withoutValues). */
export type ThreadHead = Omit<ThreadRecord, 'values'>;

export interface ThreadsRepository {
  get(threadId: string): Promise<ThreadRecord | undefined>;
  /**
   * The thread's record, its values left out or not: what a run's creation reads (its owner,
   * status, metadata and config; never the values, the thread's whole history). A store that
   * keeps the values inside the record's text (PostgreSQL) reads the rest only.
   */
  withoutValues(threadId: string): Promise<ThreadHead | undefined>;
  /** Stores a new thread; resolves false (and writes nothing) when its id is taken. */
  insert(thread: ThreadRecord): Promise<boolean>;
  /**
   * Atomic read-modify-write: `change` sees the stored thread and returns the next one, or
   * undefined to leave it. Resolves to the thread stored after the call (undefined: none).
   */
  update(threadId: string, change: (current: ThreadRecord) => ThreadRecord | undefined): Promise<ThreadRecord | undefined>;
  /** Every thread that has a ttl, whoever owns it (the retention sweep's). */
  withTtl(): Promise<ThreadRecord[]>;
  /** The write that stores this thread, for one atomic write with other records' (Store.write). */
  putOp(thread: ThreadRecord): WriteOp;
  /**
   * The write that sets `fields` on the thread as it stands when the write applies (Store's
   * SetOp): what another write changed since the caller read it stays (a run's end, which
   * holds no thread lock); nothing when the thread is gone.
   */
  setOp(threadId: string, fields: Partial<ThreadRecord>): WriteOp;
  /** The matching threads in the page's order. */
  search(filter: ThreadFilter, page: ThreadPage): Promise<ThreadRecord[]>;
  count(filter: ThreadFilter): Promise<number>;
}
