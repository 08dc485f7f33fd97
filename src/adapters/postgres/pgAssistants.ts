// The assistants on PostgreSQL: kept in their tables through the store's collections, as on
// the embedded store (collectionAssistants.ts), with the searches and counts in SQL over
// agentplane_assistants (pgTables.ts): owner, graph, name, metadata and the sort are columns,
// so nothing is filtered or sorted in Node.
import type { AssistantFilter, AssistantPage, AssistantRecord, AssistantSortField } from '../../domain/ports/assistantsRepository.ts';
import { CollectionAssistants } from '../embedded/collectionAssistants.ts';
import type { PgStore } from './pgStore.ts';
import { metadataEquals } from './pgSql.ts';

/** Sort fields as columns; text in byte order (COLLATE "C"), as the embedded store compares strings. */
const SORT_COLUMNS: Record<AssistantSortField, string> = {
  assistant_id: 'assistant_id COLLATE "C"',
  graph_id: 'graph_id COLLATE "C"',
  name: 'name COLLATE "C"',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

export class PgAssistants extends CollectionAssistants {
  constructor(private readonly store: PgStore) {
    super(store);
  }

  override async search(filter: AssistantFilter, page: AssistantPage): Promise<AssistantRecord[]> {
    const { sql, params } = assistantSearchSql(filter, page);
    const { rows } = await this.store.query<{ doc: AssistantRecord }>(sql, params);
    return rows.map((r) => r.doc);
  }

  override async count(filter: AssistantFilter): Promise<number> {
    const { where, params } = conditions(filter);
    const { rows } = await this.store.query<{ n: string }>(`SELECT count(*) AS n FROM agentplane_assistants WHERE ${where}`, params);
    return Number(rows[0].n);
  }
}

/** The statement of a search (exported for the EXPLAIN tests). */
export function assistantSearchSql(filter: AssistantFilter, page: AssistantPage): { sql: string; params: unknown[] } {
  const { where, params } = conditions(filter);
  const direction = page.order === 'asc' ? 'ASC' : 'DESC';
  params.push(page.offset, page.limit);
  return {
    sql: `SELECT doc FROM agentplane_assistants WHERE ${where} ORDER BY ${SORT_COLUMNS[page.sortBy]} ${direction}, seq ${direction} OFFSET $${params.length - 1} LIMIT $${params.length}`,
    params,
  };
}

function conditions(filter: AssistantFilter): { where: string; params: unknown[] } {
  // a system assistant is stored without an owner (owner ''), under its graph's id
  const params: unknown[] = [filter.owner, filter.systemIds, filter.graphIds];
  const parts = [`(owner = $1 OR (owner = '' AND assistant_id = ANY($2::text[])))`, 'graph_id = ANY($3::text[])'];
  if (filter.graph_id) {
    params.push(filter.graph_id);
    parts.push(`graph_id = $${params.length}`);
  }
  if (filter.name) {
    params.push(filter.name);
    parts.push(`strpos(lower(name), lower($${params.length})) > 0`);
  }
  if (filter.metadata) parts.push(...metadataEquals('metadata', filter.metadata, params));
  return { where: parts.join(' AND '), params };
}
