// The run queue shared by the replicas on one PostgreSQL database. The pending run records
// are the queue; a claim (agentplane_run_claims) is one replica's leased right to execute
// one run. Claiming takes the oldest pending run, by insertion order, of a thread that has
// no claim and no earlier pending run, skipping rows another replica is claiming at that
// moment, the threads' next runs in the order of the fair share between owners
// (domain/agent/runs/runFairShare.ts); the claim's unique thread_id keeps a thread to one running run whatever races. The
// run turns `running` in the statement that takes its claim, so a run is running exactly when
// it has a claim. Each claim has a token of its own: renewals, the run's end and the release
// name it, so a replica whose claim was taken over writes nothing for the run (the run's end
// is written only in a transaction whose first statement finds and locks the claim, token
// and attempt, see FENCE_SQL). Leases are judged by the database's clock (runLease.ts).
// Replicas are woken by NOTIFY (queued, ended, released).
import type pg from 'pg';
import type { RunRecord, ThreadRecord } from '../../domain/agent/records.ts';
import { leaseTimes } from '../../domain/agent/runs/runLease.ts';
import type { Abandoned, Claim, EndState, LogClose, Recovered, RunClaims, RunStart } from '../../domain/ports/runClaims.ts';
import type { WriteOp } from '../../domain/ports/store.ts';
import type { GateThen, PgStore } from '../postgres/pgStore.ts';
import { REPLICA_SPACE, replicaLivenessKey, type PgCoordination } from '../postgres/pgCoordination.ts';
import { OPEN_LOG_WITH, type PgRunEventLog } from './pgRunEventLog.ts';
import { firstReadsColumns, knownReadsOf, type ClaimedReads, type FirstReadsRow } from './pgFirstReads.ts';
import { CHECKPOINT_KEY_SEPARATOR } from '../../domain/agent/checkpoints/checkpointer.ts';
import { storableCopy } from '../../runtime/transports/http/storableText.ts';

const CLAIMABLE_CHANNEL = 'agentplane_runs_claimable';
const CANCEL_CHANNEL = 'agentplane_runs_cancel';

export interface PgRunClaimsOptions {
  store: PgStore;
  coordination: PgCoordination;
  /** AGENTPLANE_RUN_LEASE_S: a claim stays this replica's for leaseTimes(leaseMs).heldForMs after a renewal. */
  leaseMs: number;
  /** The runs' event logs: opened here for a run enqueued in more than one statement, ended here with a run's final end. */
  events: PgRunEventLog;
  /** Where a notice to the other replicas that could not be sent is told (they find the run at their next look). */
  warn: (message: string, err: unknown) => void;
  /** Where the first reads read with a claim are kept for the run's start (PgRunStore.firstReads). */
  claimedReads?: ClaimedReads;
}

export class PgRunClaims implements RunClaims {
  readonly leased = true;
  // the end's fence (FENCE_SQL) finds the run running at its attempt, and a thread deleted takes
  // its runs with it (ON DELETE CASCADE): a successful end is written without a read before it
  readonly endChecksThread = true;
  private readonly store: PgStore;
  private readonly coordination: PgCoordination;
  /** How long a claim lasts after its last renewal, by the database's clock. */
  private readonly heldForMs: number;
  private readonly events: PgRunEventLog;
  private readonly warn: (message: string, err: unknown) => void;
  private readonly claimedReads: ClaimedReads | undefined;

  constructor(options: PgRunClaimsOptions) {
    this.claimedReads = options.claimedReads;
    this.store = options.store;
    this.coordination = options.coordination;
    this.heldForMs = leaseTimes(options.leaseMs).heldForMs;
    this.events = options.events;
    this.warn = options.warn;
  }

  async claim(started: RunStart, room: number, skip: ReadonlySet<string> = new Set(), perOwner?: number): Promise<{ claims: Claim[]; due: number | null }> {
    try {
      return await this.claimInOneStatement(started, room, skip, perOwner);
    } catch (error) {
      if (isDataException(error)) return this.claimAroundUnreadable(started, room, skip, perOwner);
      throw error;
    }
  }

  private async claimInOneStatement(
    started: RunStart,
    room: number,
    skip: ReadonlySet<string>,
    perOwner: number | undefined,
  ): Promise<{ claims: Claim[]; due: number | null }> {
    // one statement: the look-up, the runs started and their claims taken, and the next
    // delayed run's time (see CLAIM_SQL); a claim on a thread that this statement cannot see
    // yet (another replica's, committed meanwhile) fails it whole, and then it looks again
    for (let tries = 0; ; tries += 1) {
      try {
        const { rows } = await this.store.query<{ claimed: { doc: RunRecord; token: string; reads: FirstReadsRow }[] | null; due: number | null }>(
          CLAIM_SQL,
          [
            [...skip],
            Math.max(0, room),
            this.coordination.replicaId,
            perOwner ?? null,
            started.status,
            started.updated_at,
            this.heldForMs,
            CHECKPOINT_KEY_SEPARATOR,
          ],
          true,
        );
        const { claimed, due } = rows[0];
        // each run's first reads, read with its claim, for its start here (a round trip less a run)
        for (const c of claimed ?? []) this.claimedReads?.put(c.doc.thread_id, knownReadsOf(c.reads));
        return { claims: (claimed ?? []).map((c) => ({ run: c.doc, token: c.token })), due: due === null ? null : due * 1000 };
      } catch (error) {
        if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION || tries >= 4) throw error;
      }
    }
  }

  /**
   * The claim, one run at a time, when the one statement failed on a value PostgreSQL cannot
   * read (a record holding a `\u0000` its json functions refuse, stored before the door
   * refused it): the run whose record fails is claimed here, its record made readable, and it
   * ends with an error without executing (Claim.unreadable); the others are claimed as usual.
   * Without this, that one record failed every claim of every replica, and no run ran.
   */
  private async claimAroundUnreadable(
    started: RunStart,
    room: number,
    skip: ReadonlySet<string>,
    perOwner: number | undefined,
  ): Promise<{ claims: Claim[]; due: number | null }> {
    const claims: Claim[] = [];
    const passed = new Set(skip);
    let due: number | null = null;
    while (claims.length < Math.max(0, room)) {
      const { rows } = await this.store.query<{ run_id: string }>(CANDIDATE_SQL, [[...passed], 1, this.coordination.replicaId, perOwner ?? null]);
      const next = rows[0]?.run_id;
      if (next === undefined) break;
      try {
        const taken = await this.claimInOneStatement(started, 1, passed, perOwner);
        due = taken.due;
        for (const c of taken.claims) passed.add(c.run.run_id);
        claims.push(...taken.claims);
        if (taken.claims.length === 0) break;
      } catch (error) {
        if (!isDataException(error) || (await this.readable(next))) throw error;
        const claim = await this.claimUnreadable(next, started, error as Error);
        passed.add(next);
        if (claim) claims.push(claim);
      }
    }
    return { claims, due };
  }

  /** Whether PostgreSQL's json functions can read a run's record. */
  private async readable(runId: string): Promise<boolean> {
    try {
      await this.store.query('SELECT (SELECT count(*) FROM json_each(doc)) FROM agentplane_runs WHERE run_id = $1', [runId]);
      return true;
    } catch (error) {
      if (isDataException(error)) return false;
      throw error;
    }
  }

  /**
   * A pending run whose record PostgreSQL cannot read, claimed for this replica: its record
   * rewritten readable (each NUL and lone surrogate as U+FFFD), running, with a claim of its
   * own, in one transaction; undefined when it is no longer pending or its thread has a claim.
   */
  private async claimUnreadable(runId: string, started: RunStart, cause: Error): Promise<Claim | undefined> {
    return this.store.transaction(async (client) => {
      const { rows } = await client.query<{ text: string; thread_id: string }>(
        `SELECT doc::text AS text, thread_id FROM agentplane_runs WHERE run_id = $1 AND status = 'pending'
            AND NOT EXISTS (SELECT 1 FROM agentplane_run_claims c WHERE c.thread_id = agentplane_runs.thread_id) FOR UPDATE`,
        [runId],
      );
      if (rows.length === 0) return undefined;
      const run = { ...(storableCopy(JSON.parse(rows[0].text)) as RunRecord), status: started.status, updated_at: started.updated_at };
      await client.query('UPDATE agentplane_runs SET status = $2, updated_at = $3::timestamptz, doc = $4::json WHERE run_id = $1', [
        runId,
        started.status,
        started.updated_at,
        JSON.stringify(run),
      ]);
      const claimed = await client.query<{ token: string }>(
        `INSERT INTO agentplane_run_claims (run_id, thread_id, replica, lease_until, token)
           VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond', gen_random_uuid()::text) RETURNING token`,
        [runId, rows[0].thread_id, this.coordination.replicaId, this.heldForMs],
      );
      this.claimedReads?.forget(rows[0].thread_id);
      const error = { error: 'UnreadableRun', message: `The run's record holds a value the database cannot read (${cause.message}); it was not run.` };
      return { run, token: claimed.rows[0].token, unreadable: error };
    });
  }

  async recordEnd(claim: Claim, ops: WriteOp[], release?: RunRecord, close?: LogClose): Promise<boolean> {
    // with `release`, the claim goes in the same statement, behind the same fence, and the
    // other replicas are told at its commit (as release does); with `close` too, the run's
    // log ends there (its last events, `end`, its readers woken): a commit less per run
    // (alone on the database, no other replica is there to tell: coordination.alone)
    const then: GateThen | undefined = release && {
      sql: 'DELETE FROM agentplane_run_claims WHERE run_id = $1 AND token = $2',
      params: [claim.run.run_id, claim.token],
      ...(this.coordination.alone() ? {} : { notify: [CLAIMABLE_CHANNEL, this.coordination.replicaId] as [string, string] }),
    };
    const closing = release && close ? await this.events.closing(claim.run.run_id, close) : undefined;
    const held = await this.store.writeIf(FENCE_SQL, [claim.run.run_id, claim.token, claim.run.attempt], ops, then, closing?.also);
    if (held) closing?.written();
    return held;
  }

  async endState(run: RunRecord, withThread: boolean): Promise<EndState> {
    if (!withThread) {
      const { rows } = await this.store.query<{ run: RunRecord | null; there: boolean }>(END_RUN_STATE_SQL, [run.run_id, run.thread_id], true);
      return { run: rows[0]?.run ?? undefined, threadThere: rows[0]?.there === true, thread: undefined };
    }
    const { rows } = await this.store.query<{ run: RunRecord | null; thread: ThreadRecord | null }>(END_STATE_SQL, [run.run_id, run.thread_id], true);
    const row = rows[0];
    return { run: row?.run ?? undefined, threadThere: row?.thread != null, thread: row?.thread ?? undefined };
  }

  async renew(held: Claim[]): Promise<{ lost: string[]; cancels: { runId: string; action: string }[] }> {
    // only the claims named: one whose claiming statement committed but never answered (the
    // database went away) is executed by no one, and must run out so that another takes it
    const { rows } = await this.store.query<{ run_id: string; cancel: string | null }>(
      `UPDATE agentplane_run_claims SET lease_until = now() + $2 * interval '1 millisecond' WHERE replica = $1 AND token = ANY($3::text[]) RETURNING run_id, cancel`,
      [this.coordination.replicaId, this.heldForMs, held.map((c) => c.token)],
      true,
    );
    const mine = new Set(rows.map((r) => r.run_id));
    return {
      lost: held.filter((c) => !mine.has(c.run.run_id)).map((c) => c.run.run_id),
      cancels: rows.filter((r) => r.cancel).map((r) => ({ runId: r.run_id, action: r.cancel! })),
    };
  }

  async enqueue(ops: WriteOp[], run: RunRecord, owner: string): Promise<{ woke: boolean }> {
    // the run's records, its log opened and the thread's waiters woken (OPEN_LOG_WITH), and
    // the other replicas told unless its thread has a claim: then that claim's release tells
    // them, after this commits. The claim's row is locked against its release (KEY SHARE: a
    // run's end, fenced FOR NO KEY UPDATE, is not held up), so a release and this statement
    // cannot pass each other unseen: the release commits first (and this finds no claim, and
    // tells them) or waits for this one (and then finds the run). Alone on the database
    // (coordination.alone), there is no one to tell: the channels are null, and nothing is
    // sent (this replica's waiters for the thread are woken here: events.queuedHere); a replica
    // coming is ready only once the statement has ended (writeAlone), so it finds the run.
    const row = await this.coordination.writeAlone(async (alone) => {
      const queued = this.events.queuedChannel(alone);
      const written = await this.store.writeWith<{ woke: boolean }>(ops, {
        // the claim's row locked before the thread's (`first`), as the end's statement does
        first: { name: 'held', cte: `held AS (SELECT 1 FROM agentplane_run_claims WHERE thread_id = $3::text FOR KEY SHARE)` },
        ctes: [OPEN_LOG_WITH.cte],
        select: `SELECT ${OPEN_LOG_WITH.notify}, CASE WHEN $4::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM held) THEN pg_notify($4, $5) END, NOT EXISTS (SELECT 1 FROM held) AS woke`,
        params: [run.run_id, owner, run.thread_id, alone ? null : CLAIMABLE_CHANNEL, this.coordination.replicaId, queued],
      });
      if (written && queued === null) this.events.queuedHere(run.thread_id);
      return written;
    });
    if (row) return { woke: row.woke };
    // writes one statement cannot carry (writeWith answers null for them): the same three
    // steps one after another, every replica told (the record is the queue entry, so a
    // replica that misses the notice finds the run at its next look)
    await this.store.write(ops);
    await this.events.open(run.run_id, owner, run.thread_id);
    await this.announce().catch((err) => this.warn('could not tell the other replicas of a queued run; they find it at their next look', err));
    return { woke: true };
  }

  async release(claim: Claim, _run?: RunRecord): Promise<void> {
    // a run pending again is the queue's already: its claim going is what lets it be taken
    // and every replica hears it may look: one statement (the NOTIFY goes at its commit)
    await this.store.query(RELEASE_SQL, [claim.run.run_id, claim.token, CLAIMABLE_CHANNEL, this.coordination.replicaId], true);
  }

  async requestCancel(runId: string, action: string): Promise<void> {
    // kept on the claim too, so a replica that missed the message sees it at its next renewal
    await this.store.query('UPDATE agentplane_run_claims SET cancel = $2 WHERE run_id = $1', [runId, action]);
    await this.coordination.notify(CANCEL_CHANNEL, JSON.stringify({ runId, action }));
  }

  async recover(abandoned: Abandoned): Promise<Recovered> {
    // a replica is gone when its liveness lock is free: its session ended (kill -9, lost host);
    // unless the database itself restarted lately, which ended every session (see livenessTrusted).
    // pg_locks lists the whole server's locks: only this database's are its replicas'
    const { rows } = await this.store.query<{ run_id: string; replica: string; token: string | null }>(
      `SELECT run_id, replica, token FROM agentplane_run_claims c
        WHERE c.replica <> $1
          AND (c.lease_until < now() OR ($3 AND NOT EXISTS (
            SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $2 AND l.objid = ${replicaLivenessKey('c.replica')}::oid AND l.objsubid = 2
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))))`,
      [this.coordination.replicaId, REPLICA_SPACE, this.coordination.livenessTrusted()],
    );
    const changed: RunRecord[] = [];
    for (const row of rows) {
      const run = await this.store.transaction(async (client) => {
        // one replica takes each claim over, whoever else looks at the same moment
        const taken = await client.query('DELETE FROM agentplane_run_claims WHERE run_id = $1 AND token IS NOT DISTINCT FROM $2', [row.run_id, row.token]);
        if (taken.rowCount !== 1) return null;
        const current = await this.runForUpdate(client, row.run_id);
        if (!current || current.status !== 'running') return null;
        const next = abandoned(current);
        await client.query(SET_ABANDONED, [row.run_id, next.status, next.updated_at, JSON.stringify(next)]);
        return next;
      });
      if (run) changed.push(run);
    }
    if (rows.length) await this.announce();
    // pending runs are in the shared queue (the records) already, their logs in the database
    return { abandoned: changed, queued: [] };
  }

  onClaimable(wake: () => void): () => void {
    // a replica's own messages wake the others: it looks by itself after what it sends them
    // (the engine, after a run queued, ended or taken over); '' (messages may have been
    // missed) and the others' wake it
    const own = this.coordination.replicaId;
    return this.coordination.listen(CLAIMABLE_CHANNEL, (payload) => {
      if (payload !== own) wake();
    });
  }

  onCancel(cancel: (runId: string, action: string) => void): () => void {
    return this.coordination.listen(CANCEL_CHANNEL, (payload) => {
      if (!payload) return;
      const { runId, action } = JSON.parse(payload) as { runId: string; action: string };
      cancel(runId, action);
    });
  }

  private async announce(): Promise<void> {
    await this.coordination.notify(CLAIMABLE_CHANNEL, this.coordination.replicaId);
  }

  private async runForUpdate(client: pg.PoolClient, runId: string): Promise<RunRecord | undefined> {
    const { rows } = await client.query<{ doc: RunRecord }>('SELECT doc FROM agentplane_runs WHERE run_id = $1 FOR UPDATE', [runId]);
    return rows[0]?.doc;
  }
}

// The SQL over the runs table (agentplane_runs, see pgTables.ts: status, thread_id,
// created_at and after_seconds are real columns).

/**
 * Claimable runs: pending, their `after_seconds` passed, no claim on their thread, no earlier
 * pending run on their thread (receipt order), skipping rows another replica is claiming
 * right now; in the order of the fair share between owners (domain/agent/runs/runFairShare.ts): an
 * owner's k-th claimable run at turn (its runs running) + k, a turn shared by several runs
 * taken oldest first. Each thread's first pending run is found by one descent of the
 * pending-runs index per thread (`heads`, a recursive walk: the first entry of the first thread
 * after the one before), not by reading every pending run and keeping each thread's first: a
 * thread's later pending runs are never read, and the walk is an index scan, which marks the
 * entries of runs no longer pending that it passes as dead (a bitmap scan never does, and read
 * each one's heap page at every look until a vacuum: 741 entries and 200 pages for 169 pending
 * runs on 20 threads, in the bench's plain round). An owner's runs running are its runs holding
 * a claim (a run is running exactly when it has one; a claim also holds its slot for the few
 * statements between a run's end and its release), each claim's run looked up by its key (a
 * subquery per claim, which the planner cannot turn into a join: as a join, a plan kept for
 * the statement read the whole runs table), not by status: the status index keeps an entry
 * for every version of a run that was ever running until a vacuum, and a bitmap scan of it
 * read each one's page (241 pages for 4 running runs, half of what a claim read, in the
 * bench's replicas phase). Served by the pending-per-thread index and the runs' key. An
 * owner's k-th claimable run is left out when the owner's runs this replica ($3) executes and
 * k are past $4 (AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT: the slots are this replica's; null, no
 * bound; never the shared space, owner '').
 * Exported for the EXPLAIN test, with the claim's parameters ($1 skipped, $2 how many, $3 this
 * replica, $4 the bound).
 */
export const CANDIDATE_SQL = `WITH RECURSIVE heads AS (
      (SELECT run_id, thread_id, seq, owner, after_seconds, created_at FROM agentplane_runs
        WHERE status = 'pending' ORDER BY thread_id, seq LIMIT 1)
      UNION ALL
      SELECT n.* FROM heads p CROSS JOIN LATERAL (SELECT run_id, thread_id, seq, owner, after_seconds, created_at FROM agentplane_runs
        WHERE status = 'pending' AND thread_id > p.thread_id ORDER BY thread_id, seq LIMIT 1) n)
  SELECT r.run_id, r.thread_id FROM agentplane_runs r
    JOIN (SELECT h.run_id, h.seq, h.owner, coalesce(x.running, 0) AS running, coalesce(x.here, 0) AS here,
                 row_number() OVER (PARTITION BY h.owner ORDER BY h.seq) AS k
            FROM heads h
            LEFT JOIN (SELECT (SELECT rc.owner FROM agentplane_runs rc WHERE rc.run_id = c.run_id) AS owner, count(*) AS running,
                              count(*) FILTER (WHERE c.replica = $3::text) AS here
                         FROM agentplane_run_claims c GROUP BY 1) x ON x.owner = h.owner
           WHERE h.after_seconds <= extract(epoch FROM now() - h.created_at)
             AND NOT EXISTS (SELECT 1 FROM agentplane_run_claims c WHERE c.thread_id = h.thread_id)
             AND h.run_id <> ALL($1::text[])) fair ON fair.run_id = r.run_id
    WHERE r.status = 'pending' AND (fair.owner = '' OR $4::bigint IS NULL OR fair.here + fair.k <= $4::bigint)
    ORDER BY fair.running + fair.k, fair.seq
    LIMIT $2
    FOR UPDATE OF r SKIP LOCKED`;

/**
 * When the earliest pending run still waiting for its `after_seconds` may start, in epoch
 * seconds (exported for the EXPLAIN test); read from the delayed pending runs' own index
 * (migration 14), not from every pending run's page. Counted in float8, not as a timestamp: a delay of
 * 1e300 seconds is a valid request, and `after_seconds * interval '1 second'` would overflow
 * ("interval out of range"), failing the claim of every run.
 */
export const NEXT_DUE_SQL = `SELECT min(extract(epoch FROM created_at)::float8 + after_seconds) AS due FROM agentplane_runs
    WHERE status = 'pending' AND after_seconds > 0 AND extract(epoch FROM created_at)::float8 + after_seconds > extract(epoch FROM now())::float8`;

/**
 * Each started run's first reads (pgFirstReads.ts), in the claim's snapshot: its thread's
 * head and newest checkpoint as the run before on it left them ($8 the key separator).
 */
const FIRST_READS_OF_STARTED = firstReadsColumns({
  thread: 's.thread_id',
  threadNs: 's.thread_id || $8::text',
  separator: '$8::text',
  valuePrefix: 's.thread_id || $8::text || $8::text',
});

/**
 * The claim, one statement: the claimable runs (CANDIDATE_SQL, at most $2) turn running ($5)
 * at $6 — the two fields replaced in the record's text in place, every other key and its
 * order kept, as the json column keeps what clients sent — each with its claim (a token of
 * its own, new now) inserted beside it; and, whatever was claimed, when the earliest pending
 * run still waiting for its `after_seconds` may start. A run turns running only while still
 * pending (a cancel holding its row is waited for) and its thread has no claim; a claim on
 * its thread that this statement cannot see yet fails the whole statement (the claims'
 * unique thread_id), so a run is running exactly when it has a claim.
 */
const CLAIM_SQL = `WITH candidates AS (${CANDIDATE_SQL}),
  started AS (
    UPDATE agentplane_runs r SET status = $5::text, updated_at = $6::text::timestamptz,
        doc = (SELECT json_object_agg(e.k, CASE e.k WHEN 'status' THEN to_json($5::text) WHEN 'updated_at' THEN to_json($6::text) ELSE e.v END ORDER BY e.o)
                 FROM json_each(r.doc) WITH ORDINALITY AS e(k, v, o))
      FROM candidates c
     WHERE r.run_id = c.run_id AND r.status = 'pending'
       AND NOT EXISTS (SELECT 1 FROM agentplane_run_claims x WHERE x.thread_id = r.thread_id)
     RETURNING r.run_id, r.thread_id, r.seq, r.doc),
  claimed AS (
    INSERT INTO agentplane_run_claims (run_id, thread_id, replica, lease_until, token)
    SELECT run_id, thread_id, $3, now() + $7 * interval '1 millisecond', gen_random_uuid()::text FROM started
    RETURNING run_id, token)
  SELECT (SELECT json_agg(json_build_object('doc', s.doc, 'token', c.token, 'reads', (SELECT row_to_json(f) FROM (SELECT ${FIRST_READS_OF_STARTED}) f)) ORDER BY s.seq)
            FROM started s JOIN claimed c ON c.run_id = s.run_id) AS claimed,
    (${NEXT_DUE_SQL}) AS due`;

/**
 * The first statement of the transaction that writes a run's end: the claim still this one
 * (its token) and the run still running at its attempt, both rows locked until the commit, so
 * a take-over (recover) waits for the end to be written, then finds the run ended. No row: the
 * claim was taken over, and the transaction writes nothing. NO KEY UPDATE: as strong as a
 * take-over's DELETE or a renewal needs to wait, and no hold-up for a run being queued on the
 * thread meanwhile (its KEY SHARE on the claim, see enqueue).
 */
const FENCE_SQL = `SELECT 1 FROM agentplane_run_claims c JOIN agentplane_runs r ON r.run_id = c.run_id
    WHERE c.run_id = $1 AND c.token = $2 AND r.status = 'running' AND (r.doc->>'attempt')::integer = $3
    FOR NO KEY UPDATE OF c, r`;

/** The run and its thread, read in one statement (what a run's end is written from; the runs pending on the thread are counted by the write). */
const END_STATE_SQL = `SELECT (SELECT doc FROM agentplane_runs WHERE run_id = $1) AS run,
    (SELECT doc FROM agentplane_threads WHERE thread_id = $2) AS thread`;

/** The run, and whether its thread is there: its document (the thread's values) not read. */
const END_RUN_STATE_SQL = `SELECT (SELECT doc FROM agentplane_runs WHERE run_id = $1) AS run,
    EXISTS (SELECT 1 FROM agentplane_threads WHERE thread_id = $2) AS there`;

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** An error of SQLSTATE class 22, data exception: a value the statement could not read or compute (not the database's state). */
const isDataException = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('22');
};

/** A taken-over run's new document, its status column with it: only while it is still running. */
const SET_ABANDONED = `UPDATE agentplane_runs SET status = $2, updated_at = $3::timestamptz, doc = $4::json WHERE run_id = $1 AND status = 'running'`;

/** A claim given up (this claim only, by its token), and the other replicas woken to look for work (the payload names the sender, $4). */
const RELEASE_SQL = `WITH released AS (DELETE FROM agentplane_run_claims WHERE run_id = $1 AND token = $2) SELECT pg_notify($3, $4)`;
