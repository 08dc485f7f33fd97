// The crons on PostgreSQL: kept in the crons table through the store's collection, as on the
// embedded store, with the searches, counts and due crons in SQL over agentplane_crons
// (pgTables.ts), where scope, assistant, thread, enabled, due time and metadata are columns.
import type { CronFilter, CronRecord, CronSortField } from '../../domain/ports/cronsRepository.ts';
import { CollectionCrons } from '../embedded/collectionCrons.ts';
import type { PgStore } from './pgStore.ts';
import { metadataEquals } from './pgSql.ts';

/** Text in byte order (COLLATE "C"), as the embedded store compares strings. */
const SORT_COLUMNS: Record<CronSortField, string> = {
  cron_id: 'cron_id COLLATE "C"',
  assistant_id: 'assistant_id COLLATE "C"',
  thread_id: 'thread_id COLLATE "C"',
  created_at: 'created_at',
  updated_at: 'updated_at',
  next_run_date: 'next_run_date',
  end_time: 'end_time',
};

export class PgCrons extends CollectionCrons {
  constructor(private readonly store: PgStore) {
    super(store);
  }

  override async search(filter: CronFilter, page: { sortBy: CronSortField; order: 'asc' | 'desc'; offset: number; limit: number }): Promise<CronRecord[]> {
    const { where, params } = conditions(filter);
    // the embedded store sorts a missing value as '': first ascending, last descending
    const direction = page.order === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
    params.push(page.offset, page.limit);
    return this.docs(
      `SELECT doc FROM agentplane_crons WHERE ${where} ORDER BY ${SORT_COLUMNS[page.sortBy]} ${direction}, seq ${page.order === 'asc' ? 'ASC' : 'DESC'} OFFSET $${params.length - 1} LIMIT $${params.length}`,
      params,
    );
  }

  override async count(filter: CronFilter): Promise<number> {
    const { where, params } = conditions(filter);
    const { rows } = await this.store.query<{ n: string }>(`SELECT count(*) AS n FROM agentplane_crons WHERE ${where}`, params);
    return Number(rows[0].n);
  }

  override due(): Promise<CronRecord[]> {
    return this.docs('SELECT doc FROM agentplane_crons WHERE enabled AND next_run_date IS NOT NULL ORDER BY seq', []);
  }

  private async docs(sql: string, params: unknown[]): Promise<CronRecord[]> {
    const { rows } = await this.store.query<{ doc: CronRecord }>(sql, params);
    return rows.map((r) => r.doc);
  }
}

function conditions(filter: CronFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [filter.scope];
  const parts = ['scope = $1'];
  for (const column of ['assistant_id', 'thread_id'] as const) {
    if (!filter[column]) continue;
    params.push(filter[column]);
    parts.push(`${column} = $${params.length}`);
  }
  if (filter.enabled !== undefined) {
    params.push(filter.enabled);
    parts.push(`enabled = $${params.length}`);
  }
  if (filter.metadata) parts.push(...metadataEquals('metadata', filter.metadata, params));
  return { where: parts.join(' AND '), params };
}
