// The control plane's records on PostgreSQL (their tables, the deployments list in SQL) hold to
// the ControlPlaneRepository contract the embedded store's collections do: one database per case.
import { after, describe } from 'node:test';
import { openPgStore, type PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgDeployments } from '../../../src/adapters/postgres/pgDeployments.ts';
import { CollectionControlPlane } from '../../../src/adapters/embedded/collectionControlPlane.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { controlPlaneRepositoryContract } from '../../support/controlPlaneRepositoryContract.ts';

const stores: PgStore[] = [];
after(async () => {
  for (const store of stores) await store.close();
});

describe('the control plane on PostgreSQL', () => {
  controlPlaneRepositoryContract(async () => {
    const store = await openPgStore({ url: await migratedDatabaseUrl() });
    stores.push(store);
    return new CollectionControlPlane(store, undefined, new PgDeployments(store));
  });
});
