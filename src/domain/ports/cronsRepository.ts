// The crons' named queries: one scope's search and count, and the scheduler's due crons.
// Answered by the collection on the embedded store (crons/collectionCrons.ts) and in SQL
// over the crons table on PostgreSQL (pgCrons.ts).
import type { Cron, CronSearchRequest } from '../../../generated/agent-server/types.gen.ts';

/** A cron as stored: with the tenant that owns it ('' while agent-server auth is off). */
export interface CronRecord extends Cron {
  scope: string;
}

export interface CronFilter {
  scope: string;
  assistant_id?: string;
  thread_id?: string;
  enabled?: boolean;
  metadata?: Record<string, unknown>;
}

export type CronSortField = NonNullable<CronSearchRequest['sort_by']>;

export interface CronsRepository {
  /** One page, sorted (a missing value sorts first, as the empty text). */
  search(filter: CronFilter, page: { sortBy: CronSortField; order: 'asc' | 'desc'; offset: number; limit: number }): Promise<CronRecord[]>;
  count(filter: CronFilter): Promise<number>;
  /** Every enabled cron with a due time. */
  due(): Promise<CronRecord[]>;
}
