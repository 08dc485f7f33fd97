// A store that tells each read of its collections as it answers it (a test's view of what a
// thread's run reads, and when).
import type { Collection, Store } from '../../src/domain/ports/store.ts';
import { storeView } from './storeViews.ts';

/** `store`, calling `read` with `collection.method` before each of its collections answers one of `methods`. */
export function readingStore(store: Store, methods: readonly string[], read: (what: string) => void): Store {
  const told = new Set(methods);
  return storeView(store, {
    collection: <T extends object>(name: string, inner: Collection<T>) =>
      new Proxy(inner, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (told.has(String(property))) read(`${name}.${String(property)}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }),
  });
}
