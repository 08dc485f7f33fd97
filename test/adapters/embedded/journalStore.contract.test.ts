// The embedded store holds to the Store contract PostgreSQL's does, held in memory and kept in a
// data directory (journal and snapshots).
import { after, describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import { tempDir } from '../../support/server.ts';
import { storeContract } from '../../support/storeContract.ts';

const opened: Store[] = [];
after(async () => {
  for (const store of opened.splice(0)) await store.close();
});

describe('the embedded store in memory', () => {
  storeContract(async () => {
    const store = await openJournalStore({ dataDir: null });
    opened.push(store);
    return store;
  });
});

describe('the embedded store in a data directory', () => {
  storeContract(async () => {
    const store = await openJournalStore({ dataDir: tempDir() });
    opened.push(store);
    return store;
  });
});
