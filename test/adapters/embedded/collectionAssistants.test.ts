// The assistants in the embedded store's collection hold to the AssistantsRepository contract.
import { describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionAssistants } from '../../../src/adapters/embedded/collectionAssistants.ts';
import { assistantsRepositoryContract } from '../../support/assistantsRepositoryContract.ts';

describe('assistants in the embedded store', () => {
  assistantsRepositoryContract(async () => new CollectionAssistants(await openJournalStore({ dataDir: null })));
});
