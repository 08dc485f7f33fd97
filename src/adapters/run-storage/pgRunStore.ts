// The runs on PostgreSQL (ports/runStore.ts): kept in the runs table through the store's
// collection, as on the embedded store (collectionRunStore.ts), with the pages, lists and
// summaries in SQL over agentplane_runs (postgres/pgTables.ts): thread, owner and status are
// columns, so a thread's page or an owner's runs in flight are read through indexes. A run's
// first reads are read with its claim (pgRunClaims.ts), else one statement (pgFirstReads.ts).
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { RunRecord } from '../../domain/agent/records.ts';
import type { KnownReads } from '../../domain/agent/graphs/runContext.ts';
import { CollectionRunStore } from './collectionRunStore.ts';
import { pgFirstReads, type ClaimedReads } from './pgFirstReads.ts';
import type { RunWindow, RunWindowSummary } from '../../domain/agent/runs/assistantRunMetrics.ts';
import type { PgStore } from '../postgres/pgStore.ts';

export class PgRunStore extends CollectionRunStore {
  constructor(
    private readonly pg: PgStore,
    /** First reads read with a run's claim (pgRunClaims.ts), taken by its start instead of a statement. */
    private readonly claimedReads?: ClaimedReads,
  ) {
    super(pg);
  }

  override async ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]> {
    const { sql, params } = runsOfThreadSql(threadId, page);
    return this.docs(sql, params);
  }

  /** The thread's run ids in one statement, from the table's column: no record read. */
  override async idsOnThread(threadId: string): Promise<string[]> {
    const { rows } = await this.pg.query<{ run_id: string }>(`SELECT run_id FROM agentplane_runs WHERE thread_id = $1 ORDER BY run_id COLLATE "C"`, [threadId]);
    return rows.map((row) => row.run_id);
  }

  /**
   * The owner's first run on the thread in one statement when it is the one (a protocol
   * thread's first run is), as the listing this replaced was one; the rest are read in a
   * second only when it is not. Memory keeps nothing here to read ids from first.
   */
  override async firstOnThread(threadId: string, owner: string, matches: (run: RunRecord) => boolean): Promise<RunRecord | undefined> {
    const sql = `SELECT doc FROM agentplane_runs WHERE thread_id = $1 AND owner = $2 ORDER BY run_id COLLATE "C" OFFSET $3 LIMIT $4`;
    const [first] = await this.docs(sql, [threadId, owner, 0, 1]);
    if (!first || matches(first)) return first;
    return (await this.docs(sql, [threadId, owner, 1, null])).find(matches);
  }

  override async countInFlight(owner: string): Promise<number> {
    const { rows } = await this.pg.query<{ n: string }>(
      `SELECT count(*) AS n FROM agentplane_runs WHERE owner = $1 AND status = ANY('{pending,running}'::text[])`,
      [owner],
    );
    return Number(rows[0].n);
  }

  override async withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    const { sql, params } = runsWithStatusSql(owner, statuses, threadId);
    return this.docs(sql, params);
  }

  override async summaryOfAssistant(window: RunWindow): Promise<RunWindowSummary> {
    const { sql, params } = assistantRunSummarySql(window);
    const { rows } = await this.pg.query<{ status: string | null; runs: string; p50_ms: number | null; p95_ms: number | null }>(sql, params);
    // one row per status, then the grand total's row (status null) carrying the percentiles
    const total = rows.find((r) => r.status === null);
    const byStatus = Object.fromEntries(rows.filter((r) => r.status !== null).map((r) => [r.status, Number(r.runs)]));
    return { byStatus, p50Ms: total?.p50_ms ?? null, p95Ms: total?.p95_ms ?? null };
  }

  /** Both reads, whatever the graph's kind: those read with the run's claim, else one statement. */
  override async firstReads(threadId: string): Promise<KnownReads> {
    return this.claimedReads?.take(threadId) ?? pgFirstReads(this.pg, threadId);
  }

  private async docs(sql: string, params: unknown[]): Promise<RunRecord[]> {
    const { rows } = await this.pg.query<{ doc: RunRecord }>(sql, params);
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

/**
 * An owner's runs of an assistant created since an instant: a row per status and a total row
 * (status null, by ROLLUP) with the finished runs' duration percentiles, read through
 * agentplane_runs_assistant_owner_created (exported for the EXPLAIN tests).
 */
export function assistantRunSummarySql(window: RunWindow): { sql: string; params: unknown[] } {
  const duration = `extract(epoch FROM updated_at - created_at) * 1000`;
  const finished = `status IN ('success', 'error', 'timeout', 'interrupted')`;
  return {
    sql: `SELECT status, count(*) AS runs,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY ${duration}) FILTER (WHERE ${finished}) AS p50_ms,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY ${duration}) FILTER (WHERE ${finished}) AS p95_ms
      FROM agentplane_runs WHERE assistant_id = $1 AND owner = $2 AND created_at >= $3
      GROUP BY ROLLUP (status)`,
    params: [window.assistantId, window.owner, window.since.toISOString()],
  };
}
