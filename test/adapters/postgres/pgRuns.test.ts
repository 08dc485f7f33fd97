// The runs on PostgreSQL (their table, the searches in SQL) hold to the RunsRepository
// contract the embedded store's collection does: one database per case.
import { describe } from 'node:test';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgRuns } from '../../../src/adapters/postgres/pgRuns.ts';
import { PgThreads } from '../../../src/adapters/postgres/pgThreads.ts';
import { openStore } from '../../support/bothStores.ts';
import { runsRepositoryContract } from '../../support/runsRepositoryContract.ts';

/** A fresh database's store (closed when the file ends). */
const pgStore = async () => (await openStore('postgres')) as PgStore;

describe('runs on PostgreSQL', () => {
  runsRepositoryContract(async () => {
    const store = await pgStore();
    return { runs: new PgRuns(store), threads: new PgThreads(store), store };
  });
});
