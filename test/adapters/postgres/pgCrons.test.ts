// The crons on PostgreSQL (their table, the searches in SQL) hold to the CronsRepository
// contract the embedded store's collection does: one database per case.
import { after, describe } from 'node:test';
import { openPgStore, type PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgCrons } from '../../../src/adapters/postgres/pgCrons.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { cronsRepositoryContract } from '../../support/cronsRepositoryContract.ts';

const stores: PgStore[] = [];
after(async () => {
  for (const store of stores) await store.close();
});

describe('crons on PostgreSQL', () => {
  cronsRepositoryContract(async () => {
    const store = await openPgStore({ url: await migratedDatabaseUrl() });
    stores.push(store);
    return new PgCrons(store);
  });
});
