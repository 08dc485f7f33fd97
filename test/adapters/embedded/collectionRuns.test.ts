// The runs in the embedded store's collection hold to the RunsRepository contract.
import { describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { openPagedStore } from '../../support/bothStores.ts';
import { CollectionRuns } from '../../../src/adapters/embedded/collectionRuns.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { runsRepositoryContract } from '../../support/runsRepositoryContract.ts';

describe('runs in the embedded store', () => {
  runsRepositoryContract(async () => {
    const store = await openJournalStore({ dataDir: null });
    return { runs: new CollectionRuns(store), threads: new CollectionThreads(store), store };
  });
});

describe('runs in the embedded store with their records on disk (issue 91)', () => {
  runsRepositoryContract(async () => {
    const store = await openPagedStore();
    return { runs: new CollectionRuns(store), threads: new CollectionThreads(store), store };
  });
});
