// Serialises async work per key (one deployment, one thread, one tenant+name). Every `await`
// between a read and a write lets another request interleave; running those sections one
// after the other per key is what makes concurrent writes to one resource safe. Shared by
// every area. When replicas share a database the areas get a Locks that also holds the key
// against the other replicas (Coordination.serialize).
import { ownTurn } from '../shared/turns.ts';

/**
 * Handed to a lock's work where the lock is held on a session of the store's own (PostgreSQL:
 * a connection holding an advisory lock): the reads and writes given it go on that session,
 * behind the lock, without a wait for a connection of their own. Opaque to the domain.
 */
export interface LockHeld {
  readonly lockHeld: true;
}

export interface LockOptions {
  /**
   * The work's first step is a read through `held` (and whatever it reads side by side
   * through it): sent behind the lock without waiting for its grant, one round trip for
   * both. Nothing of the work may reach the store otherwise before that read answers.
   */
  readsFirst?: boolean;
}

export interface Locks {
  run<T>(key: string, work: (held?: LockHeld) => Promise<T>, options?: LockOptions): Promise<T>;
}

/**
 * A key's work that waited for the one before starts in a turn of the event loop of its own
 * (shared/turns.ts, the key's turn): handed over in the microtask the one before ended in, the
 * queue of one tenant's creations under its quota lock (tenantQuotas.ts) ran back to back, ~20
 * of them in 13 ms with no socket read, and another tenant's request waited behind them all
 * (issue 83). Work that finds its key free starts at once, as before.
 */
export class KeyedLock implements Locks {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: (held?: LockHeld) => Promise<T>, _options?: LockOptions): Promise<T> {
    const previous = this.tails.get(key);
    // in process the lock is no session: the work is given none
    const result = previous ? previous.then(() => ownTurn(key)).then(() => work()) : Promise.resolve().then(() => work());
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
