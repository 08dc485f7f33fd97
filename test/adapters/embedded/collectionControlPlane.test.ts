// The control plane's records in the embedded store's collections hold to the
// ControlPlaneRepository contract.
import { describe } from 'node:test';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionControlPlane } from '../../../src/adapters/embedded/collectionControlPlane.ts';
import { controlPlaneRepositoryContract } from '../../support/controlPlaneRepositoryContract.ts';

describe('the control plane in the embedded store', () => {
  controlPlaneRepositoryContract(async () => new CollectionControlPlane(await openJournalStore({ dataDir: null })));
});
