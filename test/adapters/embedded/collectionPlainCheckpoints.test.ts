// The plain-function graphs' checkpoints hold to the PlainCheckpointsRepository contract on
// both stores: this one implementation keeps them in the embedded store's collections and,
// on PostgreSQL, in the same collections as tables.
import { describe } from 'node:test';
import { CollectionPlainCheckpoints } from '../../../src/adapters/embedded/collectionPlainCheckpoints.ts';
import { BACKENDS, openPagedStore, openStore } from '../../support/bothStores.ts';
import { plainCheckpointsRepositoryContract } from '../../support/plainCheckpointsRepositoryContract.ts';

for (const backend of BACKENDS) {
  describe(`plain checkpoints on the ${backend} store`, () => {
    plainCheckpointsRepositoryContract(async () => new CollectionPlainCheckpoints(await openStore(backend)));
  });
}

describe('plain checkpoints on the embedded store with their values on disk (issue 91)', () => {
  plainCheckpointsRepositoryContract(async () => new CollectionPlainCheckpoints(await openPagedStore()));
});
