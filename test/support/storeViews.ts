// A store as a test sees fit: the same store with some of its calls replaced (a write held
// back or failing, a collection whose reads are recorded), every other call passed through.
import type { Collection, Store, WriteOp } from '../../src/domain/ports/store.ts';

export interface StoreChanges {
  write?: (ops: WriteOp[]) => Promise<void>;
  /** The collection the view gives for `name`; `inner` is the store's own. */
  collection?: <T extends object>(name: string, inner: Collection<T>) => Collection<T>;
}

export function storeView(store: Store, changes: StoreChanges): Store {
  return {
    write: changes.write ?? ((ops) => store.write(ops)),
    collectionNames: () => store.collectionNames(),
    ping: () => store.ping(),
    flush: () => store.flush(),
    close: () => store.close(),
    collection<T extends object>(name: string, options?: Parameters<Store['collection']>[1]): Collection<T> {
      const inner = store.collection<T>(name, options);
      return changes.collection ? changes.collection(name, inner) : inner;
    },
  };
}

/** The collection with its `put` replaced (its other methods live on its prototype). */
export function withPut<T extends object>(inner: Collection<T>, put: (id: string, value: T) => Promise<void>): Collection<T> {
  return Object.create(inner, { put: { value: put } }) as Collection<T>;
}
