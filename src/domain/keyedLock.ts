// Serialises async work per key (one deployment, one thread, one tenant+name). Every `await`
// between a read and a write lets another request interleave; running those sections one
// after the other per key is what makes concurrent writes to one resource safe. Shared by
// every area. When replicas share a database the areas get a Locks that also holds the key
// against the other replicas (Coordination.serialize).
import { ownTurn } from '../shared/turns.ts';

export interface Locks {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
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

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const result = previous ? previous.then(() => ownTurn(key)).then(work) : Promise.resolve().then(work);
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
