// The runs' named queries in SQL over agentplane_runs (pgTables.ts): thread, owner and status
// are columns, so a thread's page or an owner's runs in flight are read through indexes.
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { RunRecord } from '../../domain/agent/records.ts';
import type { RunsRepository } from '../../domain/ports/runsRepository.ts';
import type { PgStore } from './pgStore.ts';

export class PgRuns implements RunsRepository {
  constructor(private readonly store: PgStore) {}

  async ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]> {
    const { sql, params } = runsOfThreadSql(threadId, page);
    return this.docs(sql, params);
  }

  async withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    const { sql, params } = runsWithStatusSql(owner, statuses, threadId);
    return this.docs(sql, params);
  }

  private async docs(sql: string, params: unknown[]): Promise<RunRecord[]> {
    const { rows } = await this.store.query<{ doc: RunRecord }>(sql, params);
    return rows.map((r) => r.doc);
  }
}

/** A thread's page of runs, highest id first in byte order (exported for the EXPLAIN tests). */
export function runsOfThreadSql(threadId: string, page: { status?: string; offset: number; limit: number }): { sql: string; params: unknown[] } {
  const params: unknown[] = [threadId];
  let where = 'thread_id = $1';
  if (page.status) {
    params.push(page.status);
    where += ` AND status = $${params.length}`;
  }
  params.push(page.offset, page.limit);
  return {
    sql: `SELECT doc FROM agentplane_runs WHERE ${where} ORDER BY run_id COLLATE "C" DESC OFFSET $${params.length - 1} LIMIT $${params.length}`,
    params,
  };
}

/** An owner's runs in some statuses, in insertion order (exported for the EXPLAIN tests). */
export function runsWithStatusSql(owner: string, statuses: RunStatus[], threadId?: string): { sql: string; params: unknown[] } {
  const params: unknown[] = [owner, statuses];
  let where = 'owner = $1 AND status = ANY($2::text[])';
  if (threadId) {
    params.push(threadId);
    where += ` AND thread_id = $${params.length}`;
  }
  return { sql: `SELECT doc FROM agentplane_runs WHERE ${where} ORDER BY seq`, params };
}
