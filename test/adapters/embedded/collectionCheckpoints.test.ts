// LangGraph's checkpoints and pending writes hold to the CheckpointsRepository contract on
// both stores: this one implementation keeps them in the embedded store's collections and,
// on PostgreSQL, in the same collections as tables.
import { after, describe } from 'node:test';
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import { openJournalStore, type JournalStore, type JournalStoreOptions } from '../../../src/adapters/embedded/journalStore.ts';
import { BACKENDS, openPagedStore, openStore } from '../../support/bothStores.ts';
import { checkpointsRepositoryContract } from '../../support/checkpointsRepositoryContract.ts';
import { tempDir } from '../../support/tempDirs.ts';

for (const backend of BACKENDS) {
  describe(`LangGraph checkpoints on the ${backend} store`, () => {
    checkpointsRepositoryContract(async () => new CollectionCheckpoints(await openStore(backend)));
  });
}

describe('LangGraph checkpoints on the embedded store with their values on disk (issue 91)', () => {
  checkpointsRepositoryContract(async () => new CollectionCheckpoints(await openPagedStore()));
});

/** The contract on stores opened on a data directory each with `options` (the cache and the threads held as small as can be). */
function onDisk(title: string, options: Partial<JournalStoreOptions>): void {
  describe(title, () => {
    const stores: JournalStore[] = [];
    after(async () => {
      for (const store of stores) await store.close();
    });
    checkpointsRepositoryContract(async () => {
      const dataDir = tempDir('grouped-store-');
      const store = await openJournalStore({ dataDir, cacheBytes: 1, heldRecords: 0, ...options });
      stores.push(store);
      return new CollectionCheckpoints(store);
    });
  });
}

// a snapshot after each write, and no thread held once on disk: every read after it reads the thread back
onDisk("LangGraph checkpoints on the embedded store, a thread's records let go as soon as a snapshot has them (issue 91)", {
  compactBytes: 1,
  maxJournalBytes: 1,
});
// no thread held but the last used, and every record in the journal: the others are read back from what was set aside
onDisk("LangGraph checkpoints on the embedded store, a thread's records set aside as soon as another thread is used, with no snapshot (issue 91)", {});
