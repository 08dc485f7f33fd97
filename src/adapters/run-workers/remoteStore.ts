// Inside a run worker: the store and the memory store as proxies whose every call is
// answered by the main thread, which alone reads and writes the data (one writer for the
// embedded journal; one pool of connections for PostgreSQL). The checkpointer and the
// plain-state store run unchanged on top of these.
import type { MemoryAccess } from '../../domain/memory/langgraphStore.ts';
import type { Collection, CollectionOptions, ListOptions, Store, WriteOp } from '../../domain/ports/store.ts';
import type { CallTarget } from './protocol.ts';
import { asTextPut, type TextPutCollections } from '../embedded/textPut.ts';

/**
 * `order`: calls with the same order are made by the main thread one after another (orderedCalls.ts).
 * `unanswered`: the call resolves once posted and the main thread sends no answer (protocol.ts's StoreCall).
 */
export type Call = (target: CallTarget, method: string, args: unknown[], order?: string, unanswered?: boolean) => Promise<unknown>;

/** The collection methods a worker may call (no `update`: its change function cannot cross threads). */
export const REMOTE_COLLECTION_METHODS = new Set(['get', 'getMany', 'insert', 'put', 'delete', 'list', 'count']);
export const REMOTE_MEMORY_METHODS = new Set(['get', 'put', 'delete', 'search', 'listNamespaces']);

/**
 * A put with its value's text made here (PutOp.json): the main thread, the store's one writer
 * and the loop every request waits on, writes the text instead of making it again (a
 * checkpoint's record is mostly JSON text already, escaped once more in its line), and keeps
 * the copy it receives instead of copying it (issues 86, 87).
 */
function withText(op: WriteOp): WriteOp {
  if (!('value' in op) || op.json !== undefined) return op;
  let json: string | undefined;
  try {
    json = JSON.stringify(op.value) as string | undefined;
  } catch {
    return op; // a value with no JSON (a cycle, a BigInt): the store refuses it, naming the record
  }
  return json === undefined ? op : { collection: op.collection, id: op.id, value: op.value, json };
}

export class RemoteStore implements Store {
  /**
   * `order`: this store's calls are made in the order given, none after one that failed (orderedCalls.ts).
   * `textPuts`: the collections whose puts the main thread's store takes as their text and kept fields alone (textPut.ts).
   */
  constructor(
    private readonly call: Call,
    private readonly order?: string,
    private readonly unanswered = false,
    private readonly textPuts?: TextPutCollections,
  ) {}

  /**
   * The same store, its calls made in order under `key` (a thread's checkpoint writes);
   * `awaited` false: its writes are posted unanswered (their outcome is the main thread's to
   * act on: the first that fails fails the run at its end, runWorkerPool.ts).
   */
  ordered(key: string, awaited = true): RemoteStore {
    return new RemoteStore(this.call, key, !awaited, this.textPuts);
  }

  collection<T extends object>(name: string, options: CollectionOptions = {}): Collection<T> {
    const call = <R>(method: string, ...args: unknown[]) => this.call('collection', method, [name, options, ...args], this.order) as Promise<R>;
    const noFilter = (listOptions: ListOptions<T> | undefined) => {
      if (listOptions?.filter) throw new Error(`collection ${name}: a filter function cannot be sent to the main thread`);
      return listOptions ?? {};
    };
    return {
      name,
      get: (id) => call('get', id),
      getMany: (ids) => call('getMany', ids),
      insert: (id, value) => call('insert', id, value),
      put: (id, value) => call('put', id, value),
      delete: (id) => call('delete', id),
      list: (listOptions) => call('list', noFilter(listOptions)),
      count: (countOptions) => call('count', noFilter(countOptions)),
      update: () => Promise.reject(new Error(`collection ${name}: update is not available in a run worker`)),
    };
  }

  write(ops: WriteOp[]): Promise<void> {
    // a held thread's checkpoint writes: their values stay here, their texts go (textPut.ts)
    const { textPuts } = this;
    const sent = this.order !== undefined && textPuts ? ops.map((op) => asTextPut(withText(op), textPuts)) : ops.map(withText);
    return this.call('write', 'write', [sent], this.order, this.unanswered) as Promise<void>;
  }

  collectionNames(): string[] {
    return [];
  }

  /** The main thread's store answers for it (a worker's health is not asked). */
  async ping(): Promise<void> {}

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

export function remoteMemory(call: Call): MemoryAccess {
  const method = <K extends keyof MemoryAccess>(name: K) => ((...args: unknown[]) => call('memory', name, args)) as unknown as MemoryAccess[K];
  return { get: method('get'), put: method('put'), delete: method('delete'), search: method('search'), listNamespaces: method('listNamespaces') };
}
