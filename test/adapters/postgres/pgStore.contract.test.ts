// The PostgreSQL store holds to the Store contract the embedded store does: one fresh database
// per case.
import { describe } from 'node:test';
import { openStore } from '../../support/bothStores.ts';
import { storeContract } from '../../support/storeContract.ts';

describe('the PostgreSQL store', () => {
  storeContract(() => openStore('postgres'));
});
