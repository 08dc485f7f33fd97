// The threads in a collection of the store (the embedded store, which keeps a thread's searched
// fields in memory and the rest, its values above all, on disk: pagedCollections.ts): filters
// are closures reading only those fields (ListOptions.fields), sorting is in memory, and only
// the page found is read whole. On PostgreSQL the same collection is
// the threads table, and pgThreads.ts answers the searches and counts in SQL instead.
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { ThreadFilter, ThreadHead, ThreadPage, ThreadsRepository } from '../../domain/ports/threadsRepository.ts';
import { ownerOf, type ThreadRecord } from '../../domain/agent/records.ts';
import { metadataContains, sortBy } from '../../domain/agent/search.ts';

/** What a search's filter reads of a thread. */
const SEARCHED: readonly string[] = ['thread_id', 'owner'];

export class CollectionThreads implements ThreadsRepository {
  protected readonly threads: Collection<ThreadRecord>;

  constructor(store: Store) {
    // by owner too: a tenant's searches, counts and quota checks walk its own threads, not every
    // tenant's (a thread's creation counted every thread in the store: one tenant's history
    // slowed every other's creations, and a flood of them blocked the event loop)
    this.threads = store.collection<ThreadRecord>('threads', { indexes: ['status', 'owner'], containment: ['metadata'] });
  }

  get(threadId: string): Promise<ThreadRecord | undefined> {
    return this.threads.get(threadId);
  }

  /** The whole record: the embedded store hands out the record it holds, values and all, at no cost. */
  withoutValues(threadId: string): Promise<ThreadHead | undefined> {
    return this.threads.get(threadId);
  }

  insert(thread: ThreadRecord): Promise<boolean> {
    return this.threads.insert(thread.thread_id, thread);
  }

  update(threadId: string, change: (current: ThreadRecord) => ThreadRecord | undefined): Promise<ThreadRecord | undefined> {
    return this.threads.update(threadId, change);
  }

  async withTtl(): Promise<ThreadRecord[]> {
    const ids = await this.threads.list({ filter: (t) => Boolean(t.ttl), fields: ['thread_id', 'ttl'] });
    return this.whole(ids);
  }

  putOp(thread: ThreadRecord): WriteOp {
    return { collection: this.threads.name, id: thread.thread_id, value: thread };
  }

  setOp(threadId: string, fields: Partial<ThreadRecord>): WriteOp {
    return { collection: this.threads.name, id: threadId, set: fields };
  }

  async search(filter: ThreadFilter, page: ThreadPage): Promise<ThreadRecord[]> {
    const end = page.limit === undefined ? undefined : page.offset + page.limit;
    if (page.sortBy === 'created_at') {
      // the store keeps creation order: page without sorting the whole collection
      const found = await this.threads.list({
        ...this.query(filter),
        fields: SEARCHED,
        reverse: page.order === 'desc',
        offset: page.offset,
        ...(page.limit === undefined ? {} : { limit: page.limit }),
      });
      return this.whole(found);
    }
    const found = await this.threads.list({ ...this.query(filter), fields: [...SEARCHED, page.sortBy] });
    return this.whole(sortBy(found, page.sortBy, page.order).slice(page.offset, end));
  }

  count(filter: ThreadFilter): Promise<number> {
    return this.threads.count({ ...this.query(filter), fields: SEARCHED });
  }

  /** The whole records of the threads found (as far as they still exist). */
  private async whole(found: readonly Pick<ThreadRecord, 'thread_id'>[]): Promise<ThreadRecord[]> {
    const threads = await this.threads.getMany(found.map((t) => t.thread_id));
    return threads.filter((t): t is ThreadRecord => t !== undefined);
  }

  private query(filter: ThreadFilter) {
    const ids = filter.ids ? new Set(filter.ids) : null;
    const { owner } = filter;
    // '' (auth off) also means a record with no owner field, which no index entry names
    const where = { ...(filter.status ? { status: filter.status } : {}), ...(owner ? { owner } : {}) };
    const checks = !owner || ids;
    return {
      where: Object.keys(where).length ? where : undefined,
      filter: checks ? (t: ThreadRecord) => ownerOf(t) === owner && (!ids || ids.has(t.thread_id)) : undefined,
      contains: metadataContains(filter.metadata),
    };
  }
}
