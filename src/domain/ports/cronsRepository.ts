// The crons as the cron service keeps them: a cron's create, replace and delete, the
// scheduler's claim of one firing, one scope's search and count, and the due crons. Kept
// in the embedded store's collection (adapters/embedded/collectionCrons.ts) and, on
// PostgreSQL, in the crons table with the searches in SQL (adapters/postgres/pgCrons.ts).
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

/** One firing claimed: the cron as it was when claimed, and the due time stored after it. */
export interface ClaimedFiring {
  fired: CronRecord;
  next: string | null;
}

export interface CronsRepository {
  /** Stores a new cron (its id is fresh). */
  create(cron: CronRecord): Promise<void>;
  /** The cron of this id, whichever scope holds it (the service checks the scope). */
  get(cronId: string): Promise<CronRecord | undefined>;
  /** Stores the next version of a cron. */
  replace(cron: CronRecord): Promise<void>;
  /** Resolves false when there was none. */
  delete(cronId: string): Promise<boolean>;
  /**
   * Claims one firing, atomically: when the cron is enabled and its due time is at or before
   * `now`, stores `next(cron)` as its due time and resolves to the firing; else (deleted,
   * disabled, not due, claimed already) to undefined.
   */
  claimDue(cronId: string, now: Date, next: (cron: CronRecord) => string | null): Promise<ClaimedFiring | undefined>;
  /** One page, sorted (a missing value sorts first, as the empty text). */
  search(filter: CronFilter, page: { sortBy: CronSortField; order: 'asc' | 'desc'; offset: number; limit: number }): Promise<CronRecord[]>;
  count(filter: CronFilter): Promise<number>;
  /** Every enabled cron with a due time. */
  due(): Promise<CronRecord[]>;
}
