// The crons in a collection of the store (the embedded store, which holds every cron in
// memory): filters are closures, sorting is in memory. On PostgreSQL the same collection is
// the crons table, and pgCrons.ts answers the searches in SQL instead.
import type { Store, Collection } from '../../domain/ports/store.ts';
import type { ClaimedFiring, CronFilter, CronRecord, CronSortField, CronsRepository } from '../../domain/ports/cronsRepository.ts';
import { metadataContains, sortBy } from '../../domain/agent/search.ts';

export class CollectionCrons implements CronsRepository {
  protected readonly crons: Collection<CronRecord>;

  constructor(store: Store) {
    this.crons = store.collection<CronRecord>('crons', { indexes: ['scope'], containment: ['metadata'] });
  }

  async create(cron: CronRecord): Promise<void> {
    await this.crons.insert(cron.cron_id, cron);
  }

  get(cronId: string): Promise<CronRecord | undefined> {
    return this.crons.get(cronId);
  }

  replace(cron: CronRecord): Promise<void> {
    return this.crons.put(cron.cron_id, cron);
  }

  delete(cronId: string): Promise<boolean> {
    return this.crons.delete(cronId);
  }

  async claimDue(cronId: string, now: Date, next: (cron: CronRecord) => string | null): Promise<ClaimedFiring | undefined> {
    let claimed: ClaimedFiring | undefined;
    await this.crons.update(cronId, (current) => {
      if (!current.enabled || !current.next_run_date || Date.parse(current.next_run_date) > now.getTime()) return undefined;
      claimed = { fired: current, next: next(current) };
      return { ...current, next_run_date: claimed.next };
    });
    return claimed;
  }

  async search(filter: CronFilter, page: { sortBy: CronSortField; order: 'asc' | 'desc'; offset: number; limit: number }): Promise<CronRecord[]> {
    return sortBy(await this.matching(filter), page.sortBy, page.order).slice(page.offset, page.offset + page.limit);
  }

  async count(filter: CronFilter): Promise<number> {
    return (await this.matching(filter)).length;
  }

  due(): Promise<CronRecord[]> {
    return this.crons.list({ filter: (c) => c.enabled && c.next_run_date !== null });
  }

  private matching(filter: CronFilter): Promise<CronRecord[]> {
    return this.crons.list({
      where: { scope: filter.scope },
      filter: (c) =>
        (!filter.assistant_id || c.assistant_id === filter.assistant_id) &&
        (!filter.thread_id || c.thread_id === filter.thread_id) &&
        (filter.enabled === undefined || c.enabled === filter.enabled),
      contains: metadataContains(filter.metadata),
    });
  }
}
