// LangGraph's checkpoints and pending writes hold to the CheckpointsRepository contract on
// both stores: this one implementation keeps them in the embedded store's collections and,
// on PostgreSQL, in the same collections as tables.
import { describe } from 'node:test';
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
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
