// The threads in the embedded store's collection hold to the ThreadsRepository contract.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CollectionOptions, ListOptions, Store } from '../../../src/domain/ports/store.ts';
import type { ThreadRecord } from '../../../src/domain/agent/records.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { openPagedStore } from '../../support/bothStores.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { thread, threadsRepositoryContract } from '../../support/threadsRepositoryContract.ts';

describe('threads in the embedded store', () => {
  threadsRepositoryContract(async () => {
    const store = await openJournalStore({ dataDir: null });
    return { threads: new CollectionThreads(store), store };
  });
});

describe('threads in the embedded store with their records on disk (issue 91)', () => {
  threadsRepositoryContract(async () => {
    const store = await openPagedStore();
    return { threads: new CollectionThreads(store), store };
  });
});

describe("a tenant's searches and counts walk its own threads (issue 83: one tenant's history slowed every other's creations)", () => {
  it('asks the store by the owner index, not by a filter over every thread', async () => {
    const store = await openJournalStore({ dataDir: null });
    const asked: ListOptions<ThreadRecord>[] = [];
    const spied: Store = Object.create(store, {
      collection: {
        value: (name: string, options: CollectionOptions) => {
          const collection = store.collection<ThreadRecord>(name, options);
          return new Proxy(collection, {
            get: (target, key) =>
              key === 'count' || key === 'list'
                ? (query: ListOptions<ThreadRecord>) => (asked.push(query), (target[key] as (q: typeof query) => unknown).call(target, query))
                : Reflect.get(target, key),
          });
        },
      },
    });
    const threads = new CollectionThreads(spied);
    for (let n = 0; n < 5; n += 1) await threads.insert(thread(`b${n}`, 'tenant-b', n));
    await threads.insert(thread('a0', 'tenant-a', 0));
    assert.equal(await threads.count({ owner: 'tenant-a' }), 1);
    assert.equal(await threads.count({ owner: 'tenant-b', status: 'idle' }), 5);
    assert.equal(await threads.count({ owner: '' }), 0);
    const [own, ownIdle, none] = asked;
    assert.deepEqual(own!.where, { owner: 'tenant-a' });
    assert.equal(own!.filter, undefined, 'no closure run over other tenants');
    assert.deepEqual(ownIdle!.where, { status: 'idle', owner: 'tenant-b' });
    assert.equal(none!.where, undefined, "'' (auth off) also means records with no owner field: checked by the filter");
  });
});
