// The assistants on PostgreSQL (their table, the searches in SQL) hold to the AssistantsRepository
// contract the embedded store's collection does: one database per case.
import { describe } from 'node:test';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgAssistants } from '../../../src/adapters/postgres/pgAssistants.ts';
import { openStore } from '../../support/bothStores.ts';
import { assistantsRepositoryContract } from '../../support/assistantsRepositoryContract.ts';

/** A fresh database's store (closed when the file ends). */
const pgStore = async () => (await openStore('postgres')) as PgStore;

describe('assistants on PostgreSQL', () => {
  assistantsRepositoryContract(async () => new PgAssistants(await pgStore()));
});
