// The threads' named queries: what the thread service asks of its storage beyond reading and
// writing one thread by id. Each backend answers them its own way: the embedded store over
// its in-memory collection (embeddedThreads.ts), PostgreSQL in SQL over the threads table's
// columns and indexes (pgThreads.ts), so a search or count reads one owner's page, never
// every thread.
import type { ThreadStatus } from '../../../generated/agent-server/types.gen.ts';
import type { ThreadRecord } from '../agent/records.ts';

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

export interface ThreadsRepository {
  /** The matching threads in the page's order. */
  search(filter: ThreadFilter, page: ThreadPage): Promise<ThreadRecord[]>;
  count(filter: ThreadFilter): Promise<number>;
}
