// Run event logs shared by the replicas on one PostgreSQL database. The replica executing a
// run keeps its live log in memory (a InMemoryRunEventLog: readers on that replica are served from
// it, as on the embedded store) and appends every event to agentplane_run_events in order,
// with a NOTIFY naming the run: in batches, each written BATCH_WINDOW_MS after its first
// event, and whatever is unwritten when the run ends goes with its `end` (a run shorter than
// the window costs one statement, and one commit, for all its events); a run worker's
// checkpoint write made before the window ends carries them instead (writeCarrying). A reader on any other
// replica reads the table after its Last-Event-ID and waits for the next NOTIFY, so event
// ids are the same whichever replica a client reconnects to.
import type { RunEvent } from '../../domain/agent/runs/runEvent.ts';
import type { JoinOptions, RunEventLog } from '../../domain/ports/runEventLog.ts';
import { InMemoryRunEventLog } from './inMemoryRunEventLog.ts';
import { JsonText, jsonOf } from '../../shared/jsonText.ts';
import { jsonOfValue, rememberJson } from '../postgres/pgJsonTexts.ts';
import type { GateAlso, PgStore } from '../postgres/pgStore.ts';
import type { WriteOp } from '../../domain/ports/store.ts';
import type { LogClose } from '../../domain/ports/runClaims.ts';
import type { PgCoordination } from '../postgres/pgCoordination.ts';

const EVENTS_CHANNEL = 'agentplane_run_events';
const QUEUED_CHANNEL = 'agentplane_thread_runs';
/**
 * How long a run's first unwritten event waits for more before they are written together. A
 * statement is a commit (a WAL flush, at default settings), and readers on this replica are
 * served from memory meanwhile: only a reader on another replica sees an event up to this much
 * later. A streamed model's tokens cost a statement per window instead of one per token, and
 * an echo run's few events go with its end.
 */
const BATCH_WINDOW_MS = 50;
/** Events read per round trip by a reader following a run on another replica. */
const PAGE = 500;
/** A reader looks again this often even without a NOTIFY (one lost in a reconnect). */
const RECHECK_MS = 2_000;
/** Ended runs' logs stay this long for late readers, then go (the run's record stays). */
const KEEP_ENDED_MS = 60 * 60 * 1000;

interface Pending {
  /** Published, not yet sent. */
  rows: { n: number; event: string; data: string }[];
  /** Appends of this run so far, in order. */
  written: Promise<void>;
  /** Appends chained on `written` and not yet settled: while any is, no other statement may carry the next rows (see carry). */
  sending: number;
  /** The window of the batch waiting in `rows` (see BATCH_WINDOW_MS). */
  window?: NodeJS.Timeout;
  /** The run has executed (executed): its last events wait for its end's write, `end` or `detach`, with no window. */
  executed?: boolean;
  /** Why a batch could not be stored after every try; `end` reports it (the `end` row itself may be in it). */
  failed?: unknown;
}

export interface PgRunEventsOptions {
  /** Tries per batch of events before the run is told its events are lost (see begin). */
  writeAttempts?: number;
  /** Wait before the second try; doubling, up to 5 s. */
  retryMs?: number;
  /** How long a run's first unwritten event waits for more (BATCH_WINDOW_MS). */
  batchWindowMs?: number;
}

export class PgRunEventLog implements RunEventLog {
  private readonly local = new InMemoryRunEventLog();
  /** Next event number per run executing here. */
  private readonly counters = new Map<string, number>();
  private readonly pending = new Map<string, Pending>();
  private readonly results = new Map<string, unknown>();
  private readonly runWaiters = new Map<string, Set<() => void>>();
  private readonly threadWaiters = new Map<string, Set<() => void>>();
  /** Runs executing here whose log began elsewhere (a retry): no memory log, whose ids would differ. */
  private readonly continued = new Set<string>();
  /** Runs executing here whose log their final end's write has ended in the table (see closing). */
  private readonly closedInStore = new Set<string>();
  /** Told, per run executing here, that a batch of its events could not be stored. */
  private readonly losers = new Map<string, (error: unknown) => void>();
  private lastCleanup = 0;

  constructor(
    private readonly store: PgStore,
    private readonly coordination: PgCoordination,
    private readonly onError: (message: string, error: unknown) => void = () => {},
    private readonly options: PgRunEventsOptions = {},
  ) {
    // for the server's lifetime: the coordination drops its listeners when it closes
    coordination.listen(EVENTS_CHANNEL, (runId) => this.wake(this.runWaiters, runId));
    coordination.listen(QUEUED_CHANNEL, (threadId) => this.wake(this.threadWaiters, threadId));
  }

  async open(runId: string, owner: string, threadId?: string): Promise<void> {
    // the log and its wake-up for readers waiting on the thread (nextRunOn) in one statement
    await this.coordination.writeAlone(async (alone) => {
      const channel = this.queuedChannel(alone);
      await this.store.query(OPEN_SQL, [runId, owner, threadId ?? null, channel], true);
      if (channel === null && threadId !== undefined) this.queuedHere(threadId);
    });
  }

  /**
   * Where the NOTIFY that wakes a thread's waiters goes: null alone on the database
   * (PgCoordination.writeAlone), where no other replica waits; this replica's waiters are then
   * woken by the writer once the run is stored (queuedHere), as its own NOTIFY would have.
   */
  queuedChannel(alone: boolean): string | null {
    return alone ? null : QUEUED_CHANNEL;
  }

  /** Wakes this replica's waiters for runs queued on the thread (nextRunOn): a run stored without a NOTIFY (queuedChannel null). */
  queuedHere(threadId: string): void {
    this.wake(this.threadWaiters, threadId);
  }

  /** Where the NOTIFY that wakes a run's readers goes: null alone on the database (see queuedChannel); the writer wakes them here then (eventsHere). */
  private eventsChannel(): string | null {
    return this.coordination.alone() ? null : EVENTS_CHANNEL;
  }

  /** This replica's readers of the runs' logs woken, after rows stored without a NOTIFY (eventsChannel null). */
  private eventsHere(channel: string | null, runIds: string[]): void {
    if (channel === null) for (const runId of runIds) this.wake(this.runWaiters, runId);
  }

  nextRunOn(threadId: string, signal?: AbortSignal): Promise<void> {
    return this.waitFor(this.threadWaiters, threadId, signal, null);
  }

  async has(runId: string): Promise<boolean> {
    if (await this.local.has(runId)) return true;
    const { rowCount } = await this.store.query('SELECT 1 FROM agentplane_run_logs WHERE run_id = $1', [runId]);
    return (rowCount ?? 0) > 0;
  }

  async ownerOf(runId: string): Promise<string | undefined> {
    const { rows } = await this.store.query<{ owner: string }>('SELECT owner FROM agentplane_run_logs WHERE run_id = $1', [runId]);
    return rows[0]?.owner;
  }

  async begin(runId: string, lost: (error: unknown) => void, attempt: number): Promise<void> {
    this.losers.set(runId, lost);
    // every re-execution is a new attempt (runStateMachine.ts): only a later one has events to number after
    const next = attempt > 1 ? await this.nextEventNumber(runId) : 0;
    this.counters.set(runId, next);
    if (next > 0) this.continued.add(runId);
    else await this.local.open(runId, '');
  }

  private async nextEventNumber(runId: string): Promise<number> {
    const { rows } = await this.store.query<{ next: number }>('SELECT coalesce(max(n) + 1, 0) AS next FROM agentplane_run_events WHERE run_id = $1', [runId]);
    return Number(rows[0].next);
  }

  publish(runId: string, event: string, data: unknown): void {
    if (!this.continued.has(runId)) this.local.publish(runId, event, data);
    // the events its closing write stored (the same ones, in the same order)
    if (!this.closedInStore.has(runId)) this.append(runId, event, data);
  }

  /**
   * The statements that end, with a run's final end (PgRunClaims.recordEnd's `close`), its log:
   * its unwritten events and `close.events` after them, `end`, the log marked ended with
   * `close.result`, and the readers' wake-up; each reads the end's gate (pgStore.ts GateAlso).
   * `written` once that write is committed: the run's `close.events`, published next, and its
   * `end` are then not stored again. Undefined for a run not executing here.
   */
  async closing(runId: string, close: LogClose): Promise<{ also: GateAlso[]; written(): void } | undefined> {
    const next = this.counters.get(runId);
    if (next === undefined) return undefined;
    // the batches before are stored first: a reader who sees `end` has every event before it
    const pending = await this.batchesWritten(runId);
    const waiting = pending?.rows.length ?? 0;
    const rows = [...(pending?.rows ?? []), ...close.events.map((e, i) => ({ n: next + i, event: e.event, data: jsonOf(e.data) }))];
    const end = next + close.events.length;
    // the run's values, published as its last `values` event: serialised then (pgJsonTexts.ts)
    const result = close.result === undefined ? null : (jsonOfValue(close.result) ?? null);
    const channel = this.eventsChannel();
    return {
      also: [
        {
          sql: CLOSE_EVENTS_SQL,
          params: [runId, [...rows.map((r) => r.n), end], [...rows.map((r) => r.event), 'end'], jsonArray([...rows.map((r) => r.data), 'null'])],
        },
        { sql: CLOSE_LOG_SQL, params: [runId, result], ...(channel === null ? {} : { notify: [channel, runId] as [string, string] }) },
      ],
      written: () => {
        pending?.rows.splice(0, waiting);
        this.closedInStore.add(runId);
        this.eventsHere(channel, [runId]);
      },
    };
  }

  executed(runId: string): void {
    // a run's end comes a few milliseconds after its execution, later on a busy replica (its turn,
    // a connection of the pool): a window running out meanwhile cost a statement and a commit
    // of their own for events its end's write would have carried
    if (!this.counters.has(runId)) return; // not begun here (a run ended unread): nothing is published
    let pending = this.pending.get(runId);
    if (!pending) this.pending.set(runId, (pending = { rows: [], written: Promise.resolve(), sending: 0 }));
    clearTimeout(pending.window);
    pending.window = undefined;
    pending.executed = true;
  }

  /** Queues the event for the shared log, in order; one INSERT for what the run publishes in a window (BATCH_WINDOW_MS). */
  private append(runId: string, event: string, data: unknown): void {
    const n = this.counters.get(runId) ?? 0;
    this.counters.set(runId, n + 1);
    let pending = this.pending.get(runId);
    if (!pending) this.pending.set(runId, (pending = { rows: [], written: Promise.resolve(), sending: 0 }));
    const batch = pending;
    // a `values` event's data is the run's end state when it is its last: its text is kept for the end's writes
    batch.rows.push({ n, event, data: event === 'values' && !(data instanceof JsonText) ? rememberJson(data) : jsonOf(data) });
    if (!batch.executed) batch.window ??= setTimeout(() => this.flush(runId, batch), this.options.batchWindowMs ?? BATCH_WINDOW_MS);
  }

  /** The batch waiting in its window sent now, after the appends before it. */
  private flush(runId: string, batch: Pending): void {
    clearTimeout(batch.window);
    batch.window = undefined;
    this.chain(batch, () => this.write(runId, batch));
  }

  /** `work` made after the run's appends before it; `sending` counts it until it settles (it never rejects). */
  private chain(batch: Pending, work: () => Promise<void>): void {
    batch.sending += 1;
    batch.written = batch.written.then(work).finally(() => {
      batch.sending -= 1;
    });
  }

  /**
   * `ops` (a run's checkpoint writes, made in order by the run worker pool) written in one
   * statement with the events of every run executing here that wait in their window, when none
   * of that run's appends is still being made (their order holds): those events go earlier than
   * their window would send them, without a statement and a commit of their own. A LangGraph run
   * lasting longer than the window under load sent ~2 appends of its own a run beside its ~3
   * checkpoint writes; the replica's runs together make a statement every few milliseconds, so
   * most events now find one to go with. Their NOTIFYs are sent with them. When the ops cannot be
   * one statement, or it fails, the events are appended as their window would have (after it, in
   * order); a failure is the ops' caller's. An executed run's are left for its end.
   */
  async writeCarrying(ops: WriteOp[]): Promise<void> {
    const carried: { runId: string; batch: Pending; rows: Pending['rows'] }[] = [];
    for (const [runId, batch] of this.pending) {
      // an executed run's last events wait for its end's write, which writes them anyway
      if (batch.rows.length === 0 || batch.sending > 0 || batch.executed) continue;
      clearTimeout(batch.window);
      batch.window = undefined;
      carried.push({ runId, batch, rows: batch.rows.splice(0) });
    }
    if (carried.length === 0) return this.store.write(ops);
    let stored = false;
    let settle!: () => void;
    const made = new Promise<void>((resolve) => (settle = resolve));
    // each run's next appends wait for this statement; its rows go their own way if it did not store them
    for (const { runId, batch, rows } of carried) {
      batch.sending += 1;
      batch.written = batch.written.then(async () => {
        await made;
        if (stored) return;
        try {
          await this.write(runId, batch, rows);
        } finally {
          batch.sending -= 1;
        }
      });
    }
    try {
      const all = carried.flatMap(({ runId, rows }) => rows.map((r) => ({ runId, ...r })));
      const channel = this.eventsChannel();
      const params = [
        all.map((r) => r.runId),
        all.map((r) => r.n),
        all.map((r) => r.event),
        jsonArray(all.map((r) => r.data)),
        channel,
        carried.map((c) => c.runId),
      ];
      stored = (await this.store.writeWith(ops, { ctes: [CARRIED_CTE], select: CARRIED_SELECT, params })) !== null;
      if (stored) this.eventsHere(channel, params[5] as string[]);
      else await this.store.write(ops);
    } finally {
      // stored: none of these logs is being written any more, and the next statement may carry their rows at once
      if (stored) for (const { batch } of carried) batch.sending -= 1;
      settle();
    }
  }

  setResult(runId: string, result: unknown): void {
    this.results.set(runId, result);
    this.local.setResult(runId, result);
  }

  async result(runId: string): Promise<unknown> {
    const local = await this.local.result(runId);
    if (local !== undefined) return local;
    const { rows } = await this.store.query<{ result: unknown }>('SELECT result FROM agentplane_run_logs WHERE run_id = $1', [runId]);
    return rows[0]?.result ?? undefined;
  }

  async end(runId: string): Promise<void> {
    // kept until stored: an `end` that fails is tried again by the caller
    const result = this.results.get(runId);
    // serialised only for the statements that store it (a log its final end closed has it stored)
    const stored = () => (result === undefined ? null : (jsonOfValue(result) ?? null));
    if (this.closedInStore.has(runId)) {
      // its final end's write ended the log in the table (closing): only the memory's is left
      this.forgetRun(runId);
      await this.local.end(runId);
    } else if (this.counters.has(runId)) {
      // the run executed here: its events are stored in order, then `end` last (the memory
      // log adds its own `end`). The batch still in its window goes with the `end`.
      const pending = await this.batchesWritten(runId);
      // the last events, the `end` row, the log's end and the readers' wake-up: one
      // statement, the same rows again when the caller tries again (kept until it succeeds)
      const rows = pending?.rows ?? [];
      const channel = this.eventsChannel();
      await this.store.query(
        END_SQL,
        [runId, this.counters.get(runId), stored(), channel, rows.map((r) => r.n), rows.map((r) => r.event), jsonArray(rows.map((r) => r.data))],
        true,
      );
      this.eventsHere(channel, [runId]);
      this.forgetRun(runId);
      await this.local.end(runId);
    } else {
      // a run that never started (cancelled while pending), ended from any replica
      const channel = this.eventsChannel();
      await this.store.query(END_NEVER_STARTED_SQL, [runId, stored(), channel]);
      this.eventsHere(channel, [runId]);
    }
    this.results.delete(runId);
  }

  /**
   * The run's batches sent so far, once stored; the batch in its window is kept back (for the
   * statement that ends the log). A batch that could not be stored after its tries is thrown,
   * once, not silently: the caller tries its end again, and readers wait meanwhile.
   */
  private async batchesWritten(runId: string): Promise<Pending | undefined> {
    const pending = this.pending.get(runId);
    clearTimeout(pending?.window);
    if (pending) pending.window = undefined;
    await pending?.written;
    if (pending?.failed !== undefined) {
      const failed = pending.failed;
      pending.failed = undefined;
      throw failed;
    }
    return pending;
  }

  /** What was kept for a run executing here, once its log has ended. */
  private forgetRun(runId: string): void {
    this.cleanupNow();
    this.pending.delete(runId);
    this.losers.delete(runId);
    this.counters.delete(runId);
    this.continued.delete(runId);
    this.closedInStore.delete(runId);
  }

  async detach(runId: string): Promise<void> {
    const pending = this.pending.get(runId);
    // what waits (in its window, or kept by a closing write that was not made) is written now
    if (pending?.rows.length) this.flush(runId, pending);
    await pending?.written;
    this.pending.delete(runId);
    this.losers.delete(runId);
    this.counters.delete(runId);
    this.results.delete(runId);
    this.continued.delete(runId);
    // readers here follow the shared log from now on
    await this.local.drop(runId);
  }

  async ended(runId: string, signal?: AbortSignal): Promise<void> {
    // the memory log also stops when the run stops here without ending (it is started again,
    // here or on another replica): the shared log says whether it has ended. Looked at on each
    // wake-up: a run pending when asked may have started here since, and then its own appends'
    // wake-ups are waited out in memory rather than each answered by a read
    while (!signal?.aborted) {
      if (await this.local.has(runId)) await this.local.ended(runId, signal);
      const woken = this.waitFor(this.runWaiters, runId, signal, RECHECK_MS);
      const { rows } = await this.store.query<{ ended: boolean }>(
        'SELECT ended_at IS NOT NULL AS ended FROM agentplane_run_logs WHERE run_id = $1',
        [runId],
        true,
      );
      if (!rows[0] || rows[0].ended) return;
      await woken;
    }
  }

  async drop(runId: string): Promise<void> {
    await this.local.drop(runId);
    await this.store.transaction(async (client) => {
      await client.query('DELETE FROM agentplane_run_events WHERE run_id = $1', [runId]);
      await client.query('DELETE FROM agentplane_run_logs WHERE run_id = $1', [runId]);
    });
    this.wake(this.runWaiters, runId);
  }

  async *join(runId: string, options: JoinOptions = {}): AsyncGenerator<RunEvent> {
    const parsed = options.lastEventId === undefined ? -1 : Number(options.lastEventId);
    let after = Number.isInteger(parsed) ? parsed : -1;
    const { signal } = options;
    // executing here: the live log in memory, same ids. Once it has ended here the memory
    // keeps it compacted (its last values, not every event), and the table has every event
    // (the log's `end` is stored before the memory log ends): a reader who comes then, as a
    // run's own stream can when the run is quick, reads the table
    if ((await this.local.has(runId)) && !this.local.hasEnded(runId)) {
      for await (const event of this.local.join(runId, options)) {
        yield event;
        after = Number(event.id);
        if (event.event === 'end') return;
      }
      // what there is now: the live log is ahead of the table
      if (options.present) return;
      // the run stopped here without ending (started again, here or elsewhere): its shared log goes on
    }
    if (!(await this.has(runId))) return;
    while (!signal?.aborted) {
      // registered before reading, so an append after the read still wakes us
      const woken = this.waitFor(this.runWaiters, runId, signal, RECHECK_MS);
      const { rows } = await this.store.query<{ n: number; event: string; data: unknown }>(
        'SELECT n, event, data FROM agentplane_run_events WHERE run_id = $1 AND n > $2 ORDER BY n LIMIT $3',
        [runId, after, PAGE],
      );
      for (const row of rows) {
        after = row.n;
        yield { id: String(row.n), event: row.event, data: row.data };
        if (row.event === 'end' || signal?.aborted) return;
      }
      if (rows.length === PAGE) continue;
      if (options.present || !(await this.has(runId))) return;
      await woken;
    }
  }

  private async write(runId: string, batch: Pending, rows = batch.rows.splice(0)): Promise<void> {
    if (rows.length === 0) return;
    const attempts = this.options.writeAttempts ?? 20;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const channel = this.eventsChannel();
        await this.store.query(APPEND_SQL, [runId, rows.map((r) => r.n), rows.map((r) => r.event), jsonArray(rows.map((r) => r.data)), channel], true);
        this.eventsHere(channel, [runId]);
        return;
      } catch (error) {
        // readers elsewhere wait for these rows: keep trying (the database is back soon),
        // without losing the order; past the last try the run must not go on as if they had
        // them: it is started again as a new attempt (or, at its end, `end` fails)
        if (attempt >= attempts) {
          this.onError('could not store run events; the run is told', error);
          batch.failed = error;
          this.losers.get(runId)?.(error);
          return;
        }
        this.onError('could not store run events; trying again', error);
        await new Promise((resolve) => setTimeout(resolve, Math.min((this.options.retryMs ?? 100) * 2 ** (attempt - 1), 5_000)));
      }
    }
  }

  private waitFor(waiters: Map<string, Set<() => void>>, key: string, signal: AbortSignal | undefined, timeoutMs: number | null): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      let set = waiters.get(key);
      if (!set) waiters.set(key, (set = new Set()));
      const timer = timeoutMs === null ? undefined : setTimeout(done, timeoutMs);
      timer?.unref();
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set!.delete(done);
        if (set!.size === 0 && waiters.get(key) === set) waiters.delete(key);
        resolve();
      }
    });
  }

  private wake(waiters: Map<string, Set<() => void>>, key: string): void {
    // '' is the coordination's "messages may have been missed": everyone looks again
    const sets = key === '' ? [...waiters.values()] : [waiters.get(key)].filter((s) => s !== undefined);
    for (const set of sets) for (const done of [...set]) done();
  }

  /** Logs of runs that ended long ago go, at most once a minute, from whichever replica ends runs. */
  private cleanupNow(): void {
    const now = Date.now();
    if (now - this.lastCleanup < 60_000) return;
    this.lastCleanup = now;
    void this.store
      .transaction(async (client) => {
        const { rows } = await client.query<{ run_id: string }>(
          `DELETE FROM agentplane_run_logs WHERE ended_at < now() - $1 * interval '1 millisecond' RETURNING run_id`,
          [KEEP_ENDED_MS],
        );
        if (rows.length) await client.query('DELETE FROM agentplane_run_events WHERE run_id = ANY($1::text[])', [rows.map((r) => r.run_id)]);
      })
      .catch((error) => this.onError('could not remove old run event logs', error));
  }
}

/**
 * The events' data (JSON texts, one a row) as one JSON array, the parameter a statement takes
 * them apart with json_array_elements: joined as they are, where a text[] parameter had the
 * driver escape every quote of each text (the end's `values` event holds the thread's whole
 * values; the escaping was the largest piece of the replica's extra instructions a plain run on
 * PostgreSQL) and PostgreSQL unescape and parse them again.
 */
function jsonArray(texts: (string | undefined)[]): string {
  let array = '[';
  // a text that is not there (a function's JSON) a null, as the text[] parameter's NULL read
  for (let i = 0; i < texts.length; i += 1) array += (i > 0 ? ',' : '') + (texts[i] ?? 'null');
  return `${array}]`;
}

// Each write of a log and the NOTIFY that wakes its readers on other replicas are one
// statement: a data-modifying WITH runs whatever the outer SELECT reads, and the NOTIFY is
// sent when the statement commits, so no reader is woken before the rows are there. A null
// channel sends none (alone on the database: the writer wakes the readers here itself).

/**
 * The log of a run being stored, for the statement that stores it (PgRunClaims.enqueue): a
 * WITH that opens it and the NOTIFY that wakes its thread's waiters (nextRunOn), with the
 * parameters $1 run id, $2 owner, $3 thread id, $6 the channel (queuedChannel; null: none).
 */
export const OPEN_LOG_WITH = {
  cte: `opened AS (INSERT INTO agentplane_run_logs (run_id, owner, thread_id) VALUES ($1::text, $2::text, $3::text) ON CONFLICT (run_id) DO NOTHING)`,
  notify: `CASE WHEN $6::text IS NOT NULL THEN pg_notify($6, $3::text) END`,
};

/** A run's log opened, its thread's waiters (nextRunOn) woken. */
const OPEN_SQL = `WITH opened AS (INSERT INTO agentplane_run_logs (run_id, owner, thread_id) VALUES ($1::text, $2, $3::text) ON CONFLICT (run_id) DO NOTHING)
  SELECT pg_notify($4, $3::text) WHERE $3::text IS NOT NULL AND $4::text IS NOT NULL`;

/** A batch of events appended, in order (a row tried again is kept once). */
const APPEND_SQL = `WITH appended AS (INSERT INTO agentplane_run_events (run_id, n, event, data)
    SELECT $1::text, n, event, data FROM ROWS FROM (unnest($2::int[]), unnest($3::text[]), json_array_elements($4::json)) AS t(n, event, data)
    ON CONFLICT DO NOTHING)
  SELECT pg_notify($5, $1::text) WHERE $5::text IS NOT NULL`;

/**
 * Events of several runs appended by a statement that writes other records (writeCarrying): its
 * WITH and its answer (a NOTIFY a run), over $1 run ids, $2 numbers, $3 names, $4 data (a row
 * each), $5 channel, $6 the runs.
 */
const CARRIED_CTE = `carried AS (INSERT INTO agentplane_run_events (run_id, n, event, data)
    SELECT run_id, n, event, data FROM ROWS FROM (unnest($1::text[]), unnest($2::int[]), unnest($3::text[]), json_array_elements($4::json)) AS t(run_id, n, event, data)
    ON CONFLICT DO NOTHING)`;
const CARRIED_SELECT = 'SELECT pg_notify($5, run_id) FROM unnest($6::text[]) AS r(run_id) WHERE $5::text IS NOT NULL';

/** The run's last events ($5 numbers, $6 names, $7 data), the `end` row (number $2), the log marked ended with its result. */
const END_SQL = `WITH last AS (INSERT INTO agentplane_run_events (run_id, n, event, data) VALUES ($1::text, $2, 'end', 'null'::json) ON CONFLICT DO NOTHING),
  appended AS (INSERT INTO agentplane_run_events (run_id, n, event, data)
    SELECT $1::text, n, event, data FROM ROWS FROM (unnest($5::int[]), unnest($6::text[]), json_array_elements($7::json)) AS t(n, event, data)
    ON CONFLICT DO NOTHING),
  ended AS (UPDATE agentplane_run_logs SET ended_at = now(), result = coalesce($3::json, result) WHERE run_id = $1::text)
  SELECT pg_notify($4, $1::text) WHERE $4::text IS NOT NULL`;

/** A run's last events and its `end` (numbers $2, names $3, data $4), written with its final end (closing). */
const CLOSE_EVENTS_SQL = `INSERT INTO agentplane_run_events (run_id, n, event, data)
    SELECT $1::text, n, event, data FROM ROWS FROM (unnest($2::int[]), unnest($3::text[]), json_array_elements($4::json)) AS t(n, event, data)
    WHERE EXISTS (SELECT 1 FROM gate)
    ON CONFLICT DO NOTHING`;

/** The log marked ended with its result ($2), written with the run's final end (closing). */
const CLOSE_LOG_SQL = `UPDATE agentplane_run_logs SET ended_at = now(), result = coalesce($2::json, result) WHERE run_id = $1::text AND EXISTS (SELECT 1 FROM gate)`;

/** The same for a log no replica wrote to: the `end` row numbered after whatever is there. */
const END_NEVER_STARTED_SQL = `WITH last AS (INSERT INTO agentplane_run_events (run_id, n, event, data)
    SELECT $1::text, coalesce(max(n) + 1, 0), 'end', 'null'::json FROM agentplane_run_events WHERE run_id = $1::text
    ON CONFLICT DO NOTHING),
  ended AS (UPDATE agentplane_run_logs SET ended_at = now(), result = coalesce($2::json, result) WHERE run_id = $1::text)
  SELECT pg_notify($3, $1::text) WHERE $3::text IS NOT NULL`;
