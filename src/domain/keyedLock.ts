// Serialises async work per key (one deployment, one thread, one tenant+name). Every `await`
// between a read and a write lets another request interleave; running those sections one
// after the other per key is what makes concurrent writes to one resource safe. Shared by
// every area. When replicas share a database the areas get a Locks that also holds the key
// against the other replicas (Coordination.serialize).
export interface Locks {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export class KeyedLock implements Locks {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
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
