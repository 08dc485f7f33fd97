// LangGraph's checkpoints and pending writes hold to the CheckpointsRepository contract on
// both stores: this one implementation keeps them in the embedded store's collections and,
// on PostgreSQL, in the same collections as tables.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe } from 'node:test';
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import { openJournalStore, type JournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { BACKENDS, openPagedStore, openStore } from '../../support/bothStores.ts';
import { checkpointsRepositoryContract } from '../../support/checkpointsRepositoryContract.ts';

for (const backend of BACKENDS) {
  describe(`LangGraph checkpoints on the ${backend} store`, () => {
    checkpointsRepositoryContract(async () => new CollectionCheckpoints(await openStore(backend)));
  });
}

describe('LangGraph checkpoints on the embedded store with their values on disk (issue 91)', () => {
  checkpointsRepositoryContract(async () => new CollectionCheckpoints(await openPagedStore()));
});

describe("LangGraph checkpoints on the embedded store, a thread's records let go as soon as a snapshot has them (issue 91)", () => {
  const stores: JournalStore[] = [];
  after(async () => {
    for (const store of stores) await store.close();
  });
  checkpointsRepositoryContract(async () => {
    // a snapshot after each write, and no thread held once on disk: every read after it reads the thread back
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'grouped-store-'));
    const store = await openJournalStore({ dataDir, cacheBytes: 1, heldRecords: 0, compactBytes: 1, maxJournalBytes: 1 });
    stores.push(store);
    return new CollectionCheckpoints(store);
  });
});
