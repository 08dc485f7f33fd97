// The threads' named queries over a generic collection (the embedded store, which holds
// every thread in memory): filters are closures, sorting is in memory.
import type { Collection } from '../ports/store.ts';
import type { ThreadFilter, ThreadPage, ThreadsRepository } from '../ports/threadsRepository.ts';
import { ownerOf, type ThreadRecord } from './records.ts';
import { metadataContains, sortBy } from './search.ts';

export class CollectionThreads implements ThreadsRepository {
  constructor(private readonly threads: Collection<ThreadRecord>) {}

  async search(filter: ThreadFilter, page: ThreadPage): Promise<ThreadRecord[]> {
    const end = page.limit === undefined ? undefined : page.offset + page.limit;
    if (page.sortBy === 'created_at') {
      // the store keeps creation order: page without sorting the whole collection
      return this.threads.list({
        ...this.query(filter),
        reverse: page.order === 'desc',
        offset: page.offset,
        ...(page.limit === undefined ? {} : { limit: page.limit }),
      });
    }
    return sortBy(await this.threads.list(this.query(filter)), page.sortBy, page.order).slice(page.offset, end);
  }

  count(filter: ThreadFilter): Promise<number> {
    return this.threads.count(this.query(filter));
  }

  private query(filter: ThreadFilter) {
    const ids = filter.ids ? new Set(filter.ids) : null;
    return {
      where: filter.status ? { status: filter.status } : undefined,
      filter: (t: ThreadRecord) => ownerOf(t) === filter.owner && (!ids || ids.has(t.thread_id)),
      contains: metadataContains(filter.metadata),
    };
  }
}
