// The run queue shared by the replicas on one PostgreSQL database. The pending run records
// are the queue; a claim (agentplane_run_claims) is one replica's leased right to execute
// one run. Claiming takes the oldest pending run, by insertion order, of a thread that has
// no claim and no earlier pending run, with FOR UPDATE SKIP LOCKED so replicas claiming at
// once take different runs; the claim's unique thread_id keeps a thread to one running run
// whatever races. The run turns `running` in the same transaction, so a run is running
// exactly when it has a claim. Replicas are woken by NOTIFY (queued, ended, released).
import pg from 'pg';
import type { RunRecord } from '../../domain/agent/records.ts';
import type { Abandoned, Recovered, RunClaims } from '../../domain/ports/runClaims.ts';
import type { PgStore } from './pgStore.ts';
import { REPLICA_SPACE, replicaLivenessKey, type PgCoordination } from './pgCoordination.ts';

const CLAIMABLE_CHANNEL = 'agentplane_runs_claimable';
const CANCEL_CHANNEL = 'agentplane_runs_cancel';

export interface PgRunClaimsOptions {
  store: PgStore;
  coordination: PgCoordination;
  /** The collection the run records are in. */
  runs: string;
  /** How long a claim stays this replica's without a renewal. */
  leaseMs: number;
}

export class PgRunClaims implements RunClaims {
  private readonly store: PgStore;
  private readonly coordination: PgCoordination;
  private readonly runs: string;
  private readonly leaseMs: number;
  /** The claim's look-up, written once (see candidateQuery). */
  private readonly candidateSql: string;

  constructor(options: PgRunClaimsOptions) {
    this.store = options.store;
    this.coordination = options.coordination;
    this.runs = options.runs;
    this.leaseMs = options.leaseMs;
    this.candidateSql = candidateQuery(options.runs);
  }

  async claim(start: (run: RunRecord) => RunRecord): Promise<RunRecord | null> {
    // another replica may take the thread between our look and our insert: then look again
    for (let tries = 0; tries < 5; tries += 1) {
      const outcome = await this.store.transaction(async (client) => {
        const { rows } = await client.query<{ id: string; doc: RunRecord }>(this.candidateSql, []);
        if (rows.length === 0) return 'none' as const;
        const run = rows[0].doc;
        const inserted = await client.query(
          `INSERT INTO agentplane_run_claims (run_id, thread_id, replica, lease_until) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond') ON CONFLICT DO NOTHING`,
          [run.run_id, run.thread_id, this.coordination.replicaId, this.leaseMs],
        );
        if (inserted.rowCount !== 1) return 'raced' as const;
        const running = start(run);
        await client.query('UPDATE agentplane_records SET doc = $3::json WHERE collection = $1 AND id = $2', [this.runs, run.run_id, JSON.stringify(running)]);
        return running;
      });
      if (outcome === 'none') return null;
      if (outcome !== 'raced') return outcome;
    }
    return null;
  }

  async nextDue(): Promise<number | null> {
    const { rows } = await this.store.query<{ due: Date | null }>(
      `SELECT min((doc->>'created_at')::timestamptz + ${AFTER_SECONDS} * interval '1 second') AS due
         FROM agentplane_records WHERE collection = $1 AND doc->>'status' = 'pending' AND ${AFTER_SECONDS} > 0`,
      [this.runs],
    );
    return rows[0]?.due ? rows[0].due.getTime() : null;
  }

  async renew(held: string[]): Promise<{ lost: string[]; cancels: { runId: string; action: string }[] }> {
    const { rows } = await this.store.query<{ run_id: string; cancel: string | null }>(
      `UPDATE agentplane_run_claims SET lease_until = now() + $2 * interval '1 millisecond' WHERE replica = $1 RETURNING run_id, cancel`,
      [this.coordination.replicaId, this.leaseMs],
    );
    const mine = new Set(rows.map((r) => r.run_id));
    return {
      lost: held.filter((runId) => !mine.has(runId)),
      cancels: rows.filter((r) => r.cancel).map((r) => ({ runId: r.run_id, action: r.cancel! })),
    };
  }

  async queued(): Promise<void> {
    // the record is the queue entry: every replica (this one too) hears it may look
    await this.announce();
  }

  async release(run: RunRecord): Promise<void> {
    // a run pending again is the queue's already: its claim going is what lets it be taken
    await this.store.query('DELETE FROM agentplane_run_claims WHERE run_id = $1 AND replica = $2', [run.run_id, this.coordination.replicaId]);
    await this.announce();
  }

  async requestCancel(runId: string, action: string): Promise<void> {
    // kept on the claim too, so a replica that missed the message sees it at its next renewal
    await this.store.query('UPDATE agentplane_run_claims SET cancel = $2 WHERE run_id = $1', [runId, action]);
    await this.coordination.notify(CANCEL_CHANNEL, JSON.stringify({ runId, action }));
  }

  async recover(abandoned: Abandoned): Promise<Recovered> {
    // a replica is gone when its liveness lock is free: its session ended (kill -9, lost host);
    // unless the database itself restarted lately, which ended every session (see livenessTrusted)
    const { rows } = await this.store.query<{ run_id: string; replica: string }>(
      `SELECT run_id, replica FROM agentplane_run_claims c
        WHERE c.replica <> $1
          AND (c.lease_until < now() OR ($3 AND NOT EXISTS (
            SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $2 AND l.objid = ${replicaLivenessKey('c.replica')}::oid AND l.objsubid = 2)))`,
      [this.coordination.replicaId, REPLICA_SPACE, this.coordination.livenessTrusted()],
    );
    const changed: RunRecord[] = [];
    for (const row of rows) {
      const run = await this.store.transaction(async (client) => {
        // one replica takes each claim over, whoever else looks at the same moment
        const taken = await client.query('DELETE FROM agentplane_run_claims WHERE run_id = $1 AND replica = $2', [row.run_id, row.replica]);
        if (taken.rowCount !== 1) return null;
        const current = await this.runForUpdate(client, row.run_id);
        if (!current || current.status !== 'running') return null;
        const next = abandoned(current);
        await client.query('UPDATE agentplane_records SET doc = $3::json WHERE collection = $1 AND id = $2', [this.runs, row.run_id, JSON.stringify(next)]);
        return next;
      });
      if (run) changed.push(run);
    }
    if (rows.length) await this.announce();
    // pending runs are in the shared queue (the records) already, their logs in the database
    return { abandoned: changed, queued: [] };
  }

  onClaimable(wake: () => void): () => void {
    return this.coordination.listen(CLAIMABLE_CHANNEL, () => wake());
  }

  onCancel(cancel: (runId: string, action: string) => void): () => void {
    return this.coordination.listen(CANCEL_CHANNEL, (payload) => {
      if (!payload) return;
      const { runId, action } = JSON.parse(payload) as { runId: string; action: string };
      cancel(runId, action);
    });
  }

  private async announce(): Promise<void> {
    await this.coordination.notify(CLAIMABLE_CHANNEL, '');
  }

  private async runForUpdate(client: pg.PoolClient, runId: string): Promise<RunRecord | undefined> {
    const { rows } = await client.query<{ doc: RunRecord }>('SELECT doc FROM agentplane_records WHERE collection = $1 AND id = $2 FOR UPDATE', [this.runs, runId]);
    return rows[0]?.doc;
  }

}

/**
 * The next claimable run: pending, its `after_seconds` passed, no claim on its thread, no
 * earlier pending run on its thread (receipt order), skipping rows another replica is
 * claiming right now. Served by the runs' status and thread_id expression indexes.
 */
function candidateQuery(collection: string): string {
  // a literal, so the planner can match the collection's partial expression indexes
  const runs = pg.escapeLiteral(collection);
  return `SELECT r.id, r.doc FROM agentplane_records r
      WHERE r.collection = ${runs} AND r.doc->>'status' = 'pending'
        AND ${AFTER_SECONDS.replaceAll('doc', 'r.doc')} <= extract(epoch FROM now() - (r.doc->>'created_at')::timestamptz)
        AND NOT EXISTS (SELECT 1 FROM agentplane_run_claims c WHERE c.thread_id = r.doc->>'thread_id')
        AND NOT EXISTS (SELECT 1 FROM agentplane_records e WHERE e.collection = ${runs} AND e.doc->>'thread_id' = r.doc->>'thread_id' AND e.doc->>'status' = 'pending' AND e.seq < r.seq)
      ORDER BY r.seq
      LIMIT 1
      FOR UPDATE OF r SKIP LOCKED`;
}

/** A run's `after_seconds` (0 when absent), as SQL over its document. */
const AFTER_SECONDS = `coalesce((doc->'kwargs'->>'after_seconds')::float8, 0)`;
