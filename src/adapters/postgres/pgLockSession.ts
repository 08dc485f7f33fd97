// The connection a `serialize` lock is held on (PgCoordination), handed to the lock's work as
// its LockHeld: what the work reads and writes through it goes on that connection, so a run's
// creation needs no second connection (nor a wait for one) and wakes one backend, not two.
// The lock's pool is in pipeline mode (each statement its own Sync, so its own implicit
// transaction and, under READ COMMITTED, its own snapshot, taken when the backend reaches it):
// a read sent before the lock's answer is on the wire behind the lock and executes once the
// lock is granted, so it sees what the previous holder wrote before letting go, and the lock
// and the read cost one round trip.
import type pg from 'pg';
import type { LockHeld } from '../../domain/keyedLock.ts';
import { asStoreFailure } from './pgConnections.ts';

/** A get asked through a session (or the store) and not yet sent (PgStore.getDoc). */
export interface PendingGet {
  select: (param: string) => string;
  id: string;
  resolve: (doc: unknown) => void;
  reject: (error: unknown) => void;
}

export class PgLockSession implements LockHeld {
  readonly lockHeld = true as const;
  /** Gets asked through this session in this turn of the microtask queue, not yet sent. */
  gets: PendingGet[] | null = null;

  constructor(
    private readonly client: pg.PoolClient,
    /** The lock's answer: its failure fails every statement of the work. */
    private readonly locked: Promise<unknown>,
  ) {}

  /** A read: sent at once, behind the lock; answered once the lock is granted too. */
  async read<R extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    try {
      const [, result] = await Promise.all([this.locked, this.client.query<R>(query)]);
      return result;
    } catch (error) {
      throw asStoreFailure(error);
    }
  }

  /** A write: sent only once the lock is granted (no write goes out unless it is held). */
  async write<R extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    try {
      await this.locked;
      return await this.client.query<R>(query);
    } catch (error) {
      throw asStoreFailure(error);
    }
  }
}
