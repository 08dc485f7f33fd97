// The crons' named queries over a generic collection (the embedded store, which holds every
// cron in memory): filters are closures, sorting is in memory.
import type { Collection } from '../ports/store.ts';
import type { CronFilter, CronRecord, CronSortField, CronsRepository } from '../ports/cronsRepository.ts';
import { metadataContains, sortBy } from '../agent/search.ts';

export class CollectionCrons implements CronsRepository {
  constructor(private readonly crons: Collection<CronRecord>) {}

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
