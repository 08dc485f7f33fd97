// Collection.getMany on both stores: the records of many ids in their order, undefined where
// there is none, and on PostgreSQL in one statement (a page of deployments reads its latest
// revisions with it: two round trips for the page, not one per deployment).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';

const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close?.();
});

type Revision = { id: string; deployment_id: string; tenant_id: string; status: string; created_at: string; updated_at: string };
const revision = (id: string): Revision => {
  const now = new Date().toISOString();
  return { id, deployment_id: 'd1', tenant_id: 't1', status: 'DEPLOYED', created_at: now, updated_at: now };
};

for (const backend of ['embedded', 'postgres'] as const) {
  describe(`getMany on the ${backend} store`, () => {
    it('answers the records of the ids asked, in their order, undefined where there is none', async () => {
      const store = backend === 'postgres' ? await openPgStore({ url: await migratedDatabaseUrl() }) : await openJournalStore({ dataDir: null });
      stores.push(store);
      // the revisions' own table on PostgreSQL (pgTables.ts)
      const revisions = store.collection<Revision>('cp-revisions');
      const now = new Date().toISOString();
      // revisions belong to a deployment (a foreign key)
      await store
        .collection<object>('cp-deployments')
        .put('d1', { id: 'd1', tenant_id: 't1', tenant_name: 't1/one', name: 'one', status: 'READY', source_config: {}, created_at: now, updated_at: now });
      for (const id of ['r1', 'r2', 'r3']) await revisions.put(id, revision(id));
      const sent: string[] = [];
      const clientQuery = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const first = args[0] as string | { text?: string };
        sent.push(typeof first === 'string' ? first : (first?.text ?? ''));
        return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof clientQuery;
      let got: (Revision | undefined)[];
      try {
        got = await revisions.getMany(['r3', 'missing', 'r1', 'r3']);
      } finally {
        pg.Client.prototype.query = clientQuery;
      }
      assert.deepEqual(
        got.map((r) => r?.id),
        ['r3', undefined, 'r1', 'r3'],
      );
      assert.equal(sent.length, backend === 'postgres' ? 1 : 0, sent.join('\n'));
      assert.deepEqual(await revisions.getMany([]), []);
    });
  });
}
