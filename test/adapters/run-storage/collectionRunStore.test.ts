// The runs in the embedded store's collections hold to the RunStore contract, with their
// records in memory and on disk.
import { describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { openPagedStore } from '../../support/bothStores.ts';
import { CollectionRunStore } from '../../../src/adapters/run-storage/collectionRunStore.ts';
import { runStoreContract } from '../../support/runStoreContract.ts';

describe('runs in the embedded store', () => {
  runStoreContract(async () => {
    const store = await openJournalStore({ dataDir: null });
    return { runs: new CollectionRunStore(store), store };
  });
});

describe('runs in the embedded store with their records on disk (issue 91)', () => {
  runStoreContract(async () => {
    const store = await openPagedStore();
    return { runs: new CollectionRunStore(store), store };
  });
});
