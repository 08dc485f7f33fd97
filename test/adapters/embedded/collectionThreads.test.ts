// The threads in the embedded store's collection hold to the ThreadsRepository contract.
import { describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { openPagedStore } from '../../support/bothStores.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { threadsRepositoryContract } from '../../support/threadsRepositoryContract.ts';

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
