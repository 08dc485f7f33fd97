// The threads on PostgreSQL (their table, the searches in SQL) hold to the ThreadsRepository
// contract the embedded store's collection does: one database per case.
import { describe } from 'node:test';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgThreads } from '../../../src/adapters/postgres/pgThreads.ts';
import { openStore } from '../../support/bothStores.ts';
import { threadsRepositoryContract } from '../../support/threadsRepositoryContract.ts';

/** A fresh database's store (closed when the file ends). */
const pgStore = async () => (await openStore('postgres')) as PgStore;

describe('threads on PostgreSQL', () => {
  threadsRepositoryContract(async () => {
    const store = await pgStore();
    return { threads: new PgThreads(store), store };
  });
});
