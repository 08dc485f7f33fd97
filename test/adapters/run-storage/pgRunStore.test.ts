// The runs on PostgreSQL (their table, the lists, summaries and first reads in SQL) hold to the
// RunStore contract the embedded store's collections do: one database per case.
import { describe } from 'node:test';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgRunStore } from '../../../src/adapters/run-storage/pgRunStore.ts';
import { openStore } from '../../support/bothStores.ts';
import { runStoreContract } from '../../support/runStoreContract.ts';

describe('runs on PostgreSQL', () => {
  runStoreContract(async () => {
    const store = (await openStore('postgres')) as PgStore;
    return { runs: new PgRunStore(store), store };
  });
});
