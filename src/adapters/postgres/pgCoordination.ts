// Coordination between the replicas sharing one PostgreSQL database:
// - serialize: a session advisory lock per key, taken on a connection of a small pool of
//   its own (the work itself queries through the store's pool, so holders never starve it);
// - singleton: a session advisory lock held on a dedicated connection for as long as the
//   replica leads; when the replica dies its session ends and the lock is free at once for
//   the next replica's attempt (they try every `leaseRetryMs`);
// - notify/listen: NOTIFY through the store's pool, LISTEN on one dedicated connection that
//   is re-opened when it drops (listeners are then told to look again: payload '');
// - liveness: that LISTEN session also holds an advisory lock named after the replica, so
//   the others see at once (in pg_locks) when a replica is gone — its session ended. A
//   database restart ends every replica's session at once: until each has reconnected its
//   lock is missing, so for a while after this replica's own session came back
//   (`livenessTrusted`) a missing lock proves nothing;
// - alone: that session also holds the solo lock, exclusively while no other replica is on the
//   database, shared by every replica otherwise. A replica alone (`alone()`) serializes in
//   process only (no lock and unlock statements a run's creation) and the run queue sends no
//   NOTIFY meant for other replicas. A replica coming asks it (SOLO_CHANNEL, and a waiter seen
//   in pg_locks at the next check) and waits for its shared lock: the one alone first lets its
//   serialized works in flight end, then shares; a replica sharing takes the lock exclusively
//   again once the others are gone.
// Every connection is made by pgConnections.ts (a client error never reaches the process);
// the lease and LISTEN sessions reconnect with back-off while the database is away.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { KeyedLock } from '../../domain/keyedLock.ts';
import type { Coordination, SerializeOptions, Singleton } from '../../domain/ports/coordination.ts';
import { asStoreFailure, dedicatedClient, openPool } from './pgConnections.ts';

/** Advisory-lock namespaces (the first key of the two-key form): 'apsz', 'apld'. */
const SERIALIZE_SPACE = 0x6170737a;
const SINGLETON_SPACE = 0x61706c64;
/** Held by each live replica on its LISTEN session, second key `replicaLivenessKey` ('aprp'). */
export const REPLICA_SPACE = 0x61707270;
/** SQL for the second key of a replica's liveness lock, from its id in parameter $n. */
export const replicaLivenessKey = (param: string) => `(hashtext(${param}) & 2147483647)`;

/** The solo lock's namespace ('apso', second key 0): see `alone`. */
const SOLO_SPACE = 0x6170736f;
/** Where a replica coming asks the one alone to share the solo lock (payload: its id). */
const SOLO_CHANNEL = 'agentplane_solo';
/** How often a replica alone looks for one waiting for the solo lock (a request missed), and one sharing tries to be alone again. */
const SOLO_CHECK_MS = 1_000;

/** Longest wait between two attempts to re-open the LISTEN session. */
const LISTEN_RECONNECT_MAX_MS = 2_000;
/**
 * How long after this replica's LISTEN session was re-opened a missing liveness lock is not
 * taken as a replica gone: the others need as long to reconnect (their waits are capped at
 * LISTEN_RECONNECT_MAX_MS, and a loaded database answers slowly).
 */
const LIVENESS_GRACE_MS = 10_000;
/** Longest wait between two attempts to take a singleton lease while they fail. */
const LEASE_RETRY_MAX_MS = 5_000;

export interface PgCoordinationOptions {
  url: string;
  /** Connections that may hold a `serialize` lock at once. */
  lockPoolSize?: number;
  /** Connections that may hold an innermost `serialize` lock at once (SerializeOptions). */
  innermostLockPoolSize?: number;
  /** How often a replica that does not lead a singleton tries to take it over. */
  leaseRetryMs?: number;
  /** How often a leader checks that the connection holding its lease is still alive. */
  keepAliveMs?: number;
  onError?: (message: string, error: unknown) => void;
}

export class PgCoordination implements Coordination {
  readonly shared = true;
  readonly replicaId = randomUUID();
  private readonly lockPool: pg.Pool;
  /** The innermost keys' connections (SerializeOptions.innermost): outer keys' holders never take them. */
  private readonly innermostLockPool: pg.Pool;
  /**
   * NOTIFY has connections of its own: a lock holder notifies while other callers wait for
   * their lock on every connection of the lock pool.
   */
  private readonly notifyPool: pg.Pool;
  private readonly local = new KeyedLock();
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private listener: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private reconnectMs = 250;
  /** When the LISTEN session was last re-opened after a drop (null: never dropped). */
  private reopenedAt: number | null = null;
  private dropped = false;
  private readonly singletons = new Set<Singleton>();
  private closed = false;
  private readonly leaseRetryMs: number;
  private readonly keepAliveMs: number;
  /**
   * The solo lock, held by the LISTEN session: 'solo' exclusively (no other replica on the
   * database), 'leaving' while the works serialized alone end before it is shared, 'shared',
   * or 'none' (no session yet, or it dropped: its locks went with it).
   */
  private solo: 'none' | 'solo' | 'leaving' | 'shared' = 'none';
  /** Serialized works running without the database's lock (alone), and who waits for them to end. */
  private worksAlone = 0;
  private allEnded: (() => void) | null = null;
  private soloCheck: NodeJS.Timeout | null = null;

  constructor(private readonly options: PgCoordinationOptions) {
    this.lockPool = openPool(options.url, options.lockPoolSize ?? 10);
    this.innermostLockPool = openPool(options.url, options.innermostLockPoolSize ?? 3);
    this.notifyPool = openPool(options.url, 2);
    this.leaseRetryMs = options.leaseRetryMs ?? 1_000;
    this.keepAliveMs = options.keepAliveMs ?? 2_000;
  }

  serialize<T>(key: string, work: () => Promise<T>, options: SerializeOptions = {}): Promise<T> {
    // in process first: one database lock per key at a time from this replica, in call order
    return this.local.run(key, async () => {
      // alone on the database: the lock in process is the only one (a replica coming waits for these works to end)
      if (this.solo === 'solo') return this.workAlone(work);
      const pool = options.innermost ? this.innermostLockPool : this.lockPool;
      const client = await pool.connect().catch((error: unknown) => Promise.reject(asStoreFailure(error)));
      try {
        // named: parsed once per connection (a lock and an unlock per run created)
        await client.query({ name: 'agentplane_serialize_lock', text: 'SELECT pg_advisory_lock($1, hashtext($2))', values: [SERIALIZE_SPACE, key] });
        // without the solo lock, another replica may be alone and take no database lock: it
        // shares before this one holds the solo lock (the LISTEN session, opened or re-opened)
        if (this.solo === 'none') await (this.listening ??= this.connectListener());
      } catch (error) {
        // a connection whose state is unsure is closed, which frees any lock it held
        client.release(true);
        throw asStoreFailure(error);
      }
      // (a work that throws at once is a failure as a later one is: the lock is still let go)
      const [done] = await Promise.allSettled([(async () => work())()]);
      // the unlock's answer is not waited for: the work's writes have committed, and the next
      // holder (of this replica, on another connection, or of another) is granted the lock
      // when PostgreSQL runs the unlock, answered or not. A run's creation answers a round trip
      // sooner. The connection goes back to the pool once the answer comes; closed if the
      // unlock or the work failed (its state unsure), which frees the lock too
      client.query({ name: 'agentplane_serialize_unlock', text: 'SELECT pg_advisory_unlock($1, hashtext($2))', values: [SERIALIZE_SPACE, key] }).then(
        () => client.release(done.status === 'rejected'),
        () => client.release(true),
      );
      if (done.status === 'rejected') throw done.reason;
      return done.value;
    });
  }

  /**
   * Whether this replica holds the solo lock exclusively: no other replica is on the database,
   * and none starts serving before it has shared the lock. What is sent then for other
   * replicas alone (a NOTIFY that only wakes them) may be left out; one sent while a replica
   * is coming is found by it at its next look, as a missed message is.
   */
  alone(): boolean {
    return this.solo === 'solo';
  }

  /**
   * A write that, alone (`alone` given true), leaves out the NOTIFY another replica's waiters
   * would need and wakes this replica's own: it counts as a work alone, so a replica coming is
   * ready only once it has ended, and reads what it stored instead of waiting for a notice that
   * never comes (a thread's waiters look again only when woken).
   */
  writeAlone<T>(write: (alone: boolean) => Promise<T>): Promise<T> {
    return this.solo === 'solo' ? this.workAlone(() => write(true)) : write(false);
  }

  private async workAlone<T>(work: () => Promise<T>): Promise<T> {
    this.worksAlone += 1;
    try {
      return await work();
    } finally {
      this.worksAlone -= 1;
      if (this.worksAlone === 0) this.allEnded?.();
    }
  }

  /** Alone no longer: the works serialized alone end, then the solo lock is shared with the replica waiting for it. */
  private async share(client: pg.Client): Promise<void> {
    if (this.solo !== 'solo' || this.listener !== client) return;
    // every new work takes the database's lock from now on
    this.solo = 'leaving';
    if (this.worksAlone > 0) await new Promise<void>((resolve) => (this.allEnded = resolve));
    this.allEnded = null;
    try {
      // shared first (a holder goes ahead of the waiters), then the exclusive lock given up: the waiter is granted it
      await client.query('SELECT pg_advisory_lock_shared($1, 0)', [SOLO_SPACE]);
      await client.query('SELECT pg_advisory_unlock($1, 0)', [SOLO_SPACE]);
      if (this.listener === client && this.solo === 'leaving') this.solo = 'shared';
    } catch {
      // the session dropped, and its locks with it (the drop set 'none')
    }
  }

  /** Every SOLO_CHECK_MS: alone, whether a replica waits for the solo lock (its request missed); sharing, whether the others are gone. */
  private async checkSolo(): Promise<void> {
    const client = this.listener;
    if (!client) return;
    if (this.solo === 'solo') {
      const { rows } = await this.notifyPool.query<{ waiting: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = 0 AND objsubid = 2
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS waiting`,
        [SOLO_SPACE],
      );
      if (rows[0].waiting) await this.share(client);
    } else if (this.solo === 'shared') {
      const { rows } = await client.query<{ alone: boolean }>('SELECT pg_try_advisory_lock($1, 0) AS alone', [SOLO_SPACE]);
      if (!rows[0].alone) return;
      await client.query('SELECT pg_advisory_unlock_shared($1, 0)', [SOLO_SPACE]);
      if (this.listener === client && this.solo === 'shared') this.solo = 'solo';
    }
  }

  singleton(name: string, lead: (signal: AbortSignal) => Promise<void> | void): Singleton {
    const stopping = new AbortController();
    const loop = (async () => {
      // attempts that failed in a row (the database away): each waits twice as long, up to LEASE_RETRY_MAX_MS
      let failures = 0;
      const backOff = () => Math.min(this.leaseRetryMs * 2 ** failures, Math.max(this.leaseRetryMs, LEASE_RETRY_MAX_MS));
      while (!stopping.signal.aborted) {
        const held = await this.tryLease(name).catch((error) => {
          this.options.onError?.(`could not try the ${name} lease`, error);
          failures += 1;
          return null;
        });
        if (!held) {
          await sleep(failures ? backOff() : this.leaseRetryMs, stopping.signal);
          continue;
        }
        failures = 0;
        if (stopping.signal.aborted) {
          // stopped while the lease was being taken: give it back without leading
          await held.end().catch(() => undefined);
          break;
        }
        const leading = new AbortController();
        let failed = false;
        const lost = () => leading.abort();
        held.on('error', lost);
        held.on('end', lost);
        stopping.signal.addEventListener('abort', lost, { once: true });
        const keepAlive = setInterval(() => void held.query('SELECT 1').catch(lost), this.keepAliveMs);
        try {
          await Promise.resolve(lead(leading.signal));
          // leading lasts until the lease is lost or the replica stops
          if (!leading.signal.aborted) await new Promise<void>((resolve) => leading.signal.addEventListener('abort', () => resolve(), { once: true }));
        } catch (error) {
          this.options.onError?.(`the ${name} leader failed`, error);
          leading.abort();
          failed = true;
        } finally {
          clearInterval(keepAlive);
          stopping.signal.removeEventListener('abort', lost);
          // closing the session frees the lease for the next replica
          await held.end().catch(() => undefined);
        }
        // a leader that failed (its database unreachable, say) waits like a follower before
        // trying again, instead of taking the lease straight back in a tight loop
        if (failed) await sleep(this.leaseRetryMs, stopping.signal);
      }
    })();
    const singleton: Singleton = {
      stop: async () => {
        stopping.abort();
        await loop;
        this.singletons.delete(singleton);
      },
    };
    this.singletons.add(singleton);
    return singleton;
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.notifyPool.query('SELECT pg_notify($1, $2)', [channel, payload]).catch((error: unknown) => Promise.reject(asStoreFailure(error)));
  }

  /**
   * Whether a replica whose liveness lock is missing is gone. Not while this replica's own
   * session is down, nor for LIVENESS_GRACE_MS after it was re-opened: the database may
   * have restarted, ending every replica's session, and the others may not have reconnected yet.
   */
  livenessTrusted(): boolean {
    if (!this.listener) return false;
    return this.reopenedAt === null || Date.now() - this.reopenedAt >= LIVENESS_GRACE_MS;
  }

  listen(channel: string, handler: (payload: string) => void): () => void {
    let handlers = this.listeners.get(channel);
    if (!handlers) {
      this.listeners.set(channel, (handlers = new Set()));
      if (this.listener) void this.listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
    }
    handlers.add(handler);
    this.listening ??= this.connectListener();
    return () => handlers.delete(handler);
  }

  /** Resolves once the LISTEN connection is open and this replica is seen alive (start-up waits for it). */
  async ready(): Promise<void> {
    this.listening ??= this.connectListener();
    await this.listening;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.singletons].map((s) => s.stop()));
    if (this.soloCheck) clearInterval(this.soloCheck);
    await this.listener?.end().catch(() => undefined);
    await this.lockPool.end();
    await this.innermostLockPool.end();
    await this.notifyPool.end();
  }

  private async tryLease(name: string): Promise<pg.Client | null> {
    const client = dedicatedClient(this.options.url);
    await client.connect();
    try {
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS held', [SINGLETON_SPACE, name]);
      if (rows[0].held) return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    await client.end().catch(() => undefined);
    return null;
  }

  private async connectListener(): Promise<void> {
    while (!this.closed) {
      const client = dedicatedClient(this.options.url);
      try {
        await client.connect();
        client.on('notification', (message) => this.deliver(message.channel, message.payload ?? ''));
        await client.query(`SELECT pg_advisory_lock($1, ${replicaLivenessKey('$2')})`, [REPLICA_SPACE, this.replicaId]);
        // asked to share from now on; then the solo lock, exclusively when no other replica holds it, else shared once the one alone shares it
        await client.query(`LISTEN ${pg.escapeIdentifier(SOLO_CHANNEL)}`);
        const { rows } = await client.query<{ alone: boolean }>('SELECT pg_try_advisory_lock($1, 0) AS alone', [SOLO_SPACE]);
        if (!rows[0].alone) {
          await client.query('SELECT pg_notify($1, $2)', [SOLO_CHANNEL, this.replicaId]);
          await client.query('SELECT pg_advisory_lock_shared($1, 0)', [SOLO_SPACE]);
        }
        for (const channel of this.listeners.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        // closed while this connection was being opened: close() found no listener to end, so it is ended here
        if (this.closed) {
          await client.end().catch(() => undefined);
          return;
        }
        this.listener = client;
        this.solo = rows[0].alone ? 'solo' : 'shared';
        this.soloCheck ??= setInterval(() => void this.checkSolo().catch(() => undefined), SOLO_CHECK_MS);
        this.soloCheck.unref();
        this.reconnectMs = 250;
        if (this.dropped) this.reopenedAt = Date.now();
        const dropped = () => {
          if (this.listener !== client) return;
          this.listener = null;
          this.solo = 'none';
          this.dropped = true;
          if (this.closed) return;
          this.options.onError?.('the LISTEN connection to PostgreSQL dropped; reconnecting', null);
          this.listening = sleep(this.reconnectMs).then(() => this.connectListener());
        };
        client.on('error', dropped);
        client.on('end', dropped);
        // whatever was sent while no connection listened is looked for again
        for (const channel of this.listeners.keys()) this.deliver(channel, '');
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        this.options.onError?.('could not open the LISTEN connection to PostgreSQL', error);
        await sleep(this.reconnectMs);
        this.reconnectMs = Math.min(this.reconnectMs * 2, LISTEN_RECONNECT_MAX_MS);
      }
    }
  }

  private deliver(channel: string, payload: string): void {
    if (channel === SOLO_CHANNEL) {
      if (payload !== this.replicaId && this.listener) void this.share(this.listener);
      return;
    }
    for (const handler of this.listeners.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.options.onError?.(`a listener of ${channel} failed`, error);
      }
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
