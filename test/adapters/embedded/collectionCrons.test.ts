// The crons in the embedded store's collection hold to the CronsRepository contract.
import { describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionCrons } from '../../../src/adapters/embedded/collectionCrons.ts';
import { cronsRepositoryContract } from '../../support/cronsRepositoryContract.ts';

describe('crons in the embedded store', () => {
  cronsRepositoryContract(async () => new CollectionCrons(await openJournalStore({ dataDir: null })));
});
