// Webhook deliveries on PostgreSQL: replicas taking expired leases at the same time each get
// their own (FOR UPDATE SKIP LOCKED), a lease not yet run out is taken by none, and a holder
// whose delivery was taken over can neither change nor remove it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPgStore, type PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgWebhookOutbox } from '../../../src/adapters/postgres/pgWebhookOutbox.ts';
import type { PendingWebhook } from '../../../src/domain/ports/webhookOutbox.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';

const stores: PgStore[] = [];
after(async () => {
  for (const store of stores) await store.close();
});

const iso = (ms: number) => new Date(ms).toISOString();
const delivery = (id: string, holder: string, leaseUntil: number): PendingWebhook => ({
  id,
  run_id: id,
  url: 'http://hooks.example/h',
  // key order as a client sent it, kept through a takeover (json, not jsonb)
  payload: { z: 1, a: { y: 2, b: 3 } },
  attempts: 1,
  holder,
  lease_until: iso(leaseUntil),
  created_at: iso(0),
});

describe('webhook deliveries on PostgreSQL', () => {
  it('replicas taking expired leases together each get their own; a live lease is taken by none', async () => {
    const url = await migratedDatabaseUrl();
    const [one, two] = await Promise.all([openPgStore({ url }), openPgStore({ url })]);
    stores.push(one, two);
    const [a, b] = [new PgWebhookOutbox(one), new PgWebhookOutbox(two)];
    const now = Date.now();
    const expired = Array.from({ length: 30 }, (_, i) => delivery(`d${i}`, 'gone', now - 1_000));
    await one.write([...expired.map((d) => a.putOp(d)), a.putOp(delivery('live', 'other', now + 60_000))]);
    const until = iso(now + 10_000);
    const taken = (await Promise.all([a.takeExpired('a', iso(now), until, 20), b.takeExpired('b', iso(now), until, 20)])).flat();
    // a second round takes what the first left, and nothing twice
    taken.push(...(await a.takeExpired('a', iso(now), until, 20)), ...(await b.takeExpired('b', iso(now), until, 20)));
    assert.deepEqual(taken.map((d) => d.id).sort(), expired.map((d) => d.id).sort());
    for (const d of taken) {
      assert.equal(d.lease_until, until);
      assert.equal(JSON.stringify(d.payload), '{"z":1,"a":{"y":2,"b":3}}');
    }
    const live = await one.collection<PendingWebhook>('webhook_deliveries').get('live');
    assert.equal(live?.holder, 'other');
  });

  it('a holder whose delivery was taken over changes nothing of it and cannot remove it', async () => {
    const store = await openPgStore({ url: await migratedDatabaseUrl() });
    stores.push(store);
    const outbox = new PgWebhookOutbox(store);
    const now = Date.now();
    await outbox.insert(delivery('d', 'a', now - 1));
    const [taken] = await outbox.takeExpired('b', iso(now), iso(now + 10_000), 5);
    assert.equal(taken.holder, 'b');
    assert.equal(await outbox.update({ ...taken, holder: 'a', attempts: 5 }, 'a'), false);
    await outbox.remove('d', 'a');
    const kept = await store.collection<PendingWebhook>('webhook_deliveries').get('d');
    assert.equal(kept?.holder, 'b');
    assert.equal(kept?.attempts, 1);
    assert.equal(await outbox.update({ ...taken, attempts: 2 }, 'b'), true);
    await outbox.remove('d', 'b');
    assert.equal(await store.collection<PendingWebhook>('webhook_deliveries').get('d'), undefined);
  });
});
