// The threads on PostgreSQL: kept in the threads table through the store's collection, as on
// the embedded store (collectionThreads.ts), with the searches and counts in SQL over
// agentplane_threads (pgTables.ts): the owner, status and metadata filters and the sort are
// the table's columns, so a page or a count is read through the owner's indexes
// (test/adapters/postgres.explain.test.ts holds them to that at 100k).
import type { ThreadRecord } from '../../domain/agent/records.ts';
import type { ThreadFilter, ThreadHead, ThreadPage, ThreadSortField } from '../../domain/ports/threadsRepository.ts';
import { CollectionThreads } from '../embedded/collectionThreads.ts';
import type { PgStore } from './pgStore.ts';
import { metadataEquals } from './pgSql.ts';

/** Sort fields as columns (a closed list: never a request's text in SQL). */
/** Text in byte order (COLLATE "C"), as the embedded store compares strings. */
const SORT_COLUMNS: Record<ThreadSortField, string> = {
  thread_id: 'thread_id COLLATE "C"',
  status: 'status COLLATE "C"',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

export class PgThreads extends CollectionThreads {
  constructor(private readonly store: PgStore) {
    super(store);
  }

  override async search(filter: ThreadFilter, page: ThreadPage): Promise<ThreadRecord[]> {
    const { sql, params } = searchSql(filter, page);
    const { rows } = await this.store.query<{ doc: ThreadRecord }>(sql, params);
    return rows.map((r) => r.doc);
  }

  /**
   * The thread's document without its `values`, as PostgreSQL's json_each reads its top-level
   * fields (each one's text as stored, in order): a run's creation parsed the whole document,
   * the thread's history in it, on the replica's main thread (~9 KB a run of the bench's plain
   * echo, issue 87). Asked through the store's gets, so it still goes in one statement with the
   * reads asked beside it (the run's assistant).
   */
  override withoutValues(threadId: string): Promise<ThreadHead | undefined> {
    return this.store.getDoc<ThreadHead>(WITHOUT_VALUES, threadId);
  }

  override async count(filter: ThreadFilter): Promise<number> {
    const { sql, params } = countSql(filter);
    const { rows } = await this.store.query<{ n: string }>(sql, params);
    return Number(rows[0].n);
  }
}

/** The thread's document without `values`, its key in `param` (PgStore.getDoc). */
const WITHOUT_VALUES = (param: string) =>
  `SELECT (SELECT json_object_agg(f.key, f.value ORDER BY f.at) FROM json_each(doc) WITH ORDINALITY AS f(key, value, at) WHERE f.key <> 'values') AS doc
     FROM agentplane_threads WHERE thread_id = ${param}`;

/** The statement of a search (exported for the EXPLAIN tests). */
export function searchSql(filter: ThreadFilter, page: ThreadPage): { sql: string; params: unknown[] } {
  const { where, params } = conditions(filter);
  const direction = page.order === 'asc' ? 'ASC' : 'DESC';
  let sql = `SELECT doc FROM agentplane_threads WHERE ${where} ORDER BY ${SORT_COLUMNS[page.sortBy]} ${direction}, seq ${direction}`;
  params.push(page.offset);
  sql += ` OFFSET $${params.length}`;
  if (page.limit !== undefined) {
    params.push(page.limit);
    sql += ` LIMIT $${params.length}`;
  }
  return { sql, params };
}

/** The statement of a count (exported for the EXPLAIN tests). */
export function countSql(filter: ThreadFilter): { sql: string; params: unknown[] } {
  const { where, params } = conditions(filter);
  return { sql: `SELECT count(*) AS n FROM agentplane_threads WHERE ${where}`, params };
}

function conditions(filter: ThreadFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [filter.owner];
  const parts = ['owner = $1'];
  if (filter.status) {
    params.push(filter.status);
    parts.push(`status = $${params.length}`);
  }
  if (filter.ids) {
    params.push(filter.ids);
    parts.push(`thread_id = ANY($${params.length}::text[])`);
  }
  if (filter.metadata) parts.push(...metadataEquals('metadata', filter.metadata, params));
  return { where: parts.join(' AND '), params };
}
