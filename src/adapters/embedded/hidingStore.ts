// A store whose named collections' reads leave out the records a test refuses; writes pass
// through. The control plane's own engine reads the records through one that hides the
// deployments a listener reconciles, and their revisions (ControlPlaneRepository.hiding).
import type { Collection, ListOptions, Store } from '../../domain/ports/store.ts';

/** Per collection name, which of its records reads may see. */
export type Visibility = Record<string, (value: object) => Promise<boolean>>;

export function hidingStore(base: Store, visibility: Visibility): Store {
  return {
    collection: <T extends object>(name: string, options?: Parameters<Store['collection']>[1]): Collection<T> => {
      const collection = base.collection<T>(name, options);
      const visible = visibility[name];
      return visible ? hiding(collection, visible) : collection;
    },
    write: (ops) => base.write(ops),
    collectionNames: () => base.collectionNames(),
    ping: () => base.ping(),
    flush: () => base.flush(),
    close: () => base.close(),
  };
}

/** A collection whose reads leave out the records `visible` refuses; writes pass through. */
function hiding<T extends object>(base: Collection<T>, visible: (value: T) => Promise<boolean>): Collection<T> {
  const list = async (options: ListOptions<T> = {}) => {
    // `visible` reads whole records: the base gives them whole
    const { offset = 0, limit, fields: _fields, ...rest } = options;
    const all = await base.list(rest);
    const kept: T[] = [];
    for (const value of all) if (await visible(value)) kept.push(value);
    return kept.slice(offset, limit === undefined ? undefined : offset + limit);
  };
  return {
    name: base.name,
    get: async (id) => {
      const value = await base.get(id);
      return value && (await visible(value)) ? value : undefined;
    },
    getMany: async (ids) => {
      const values = await base.getMany(ids);
      return Promise.all(values.map(async (value) => (value && (await visible(value)) ? value : undefined)));
    },
    insert: (id, value) => base.insert(id, value),
    put: (id, value) => base.put(id, value),
    update: (id, change) => base.update(id, change),
    delete: (id) => base.delete(id),
    list,
    count: async (options) => (await list(options)).length,
  };
}
