// A tenant's store items are bounded in bytes together (AGENTPLANE_MAX_STORE_BYTES_PER_TENANT,
// issue 83): before, only their number was (100,000 of up to 1 MiB each, 100 GB). Puts at once
// leave the tenant within the bound and the rest refused naming the quota and its setting,
// storing nothing; replacing an item counts the difference, and a put that does not grow the
// tenant's bytes is always taken; a delete (or the sweep) makes room; another tenant's bytes
// and the open server's shared space are their own. The figure is the store's, so it holds
// after a restart, and items stored before it was kept are summed once, on both stores.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { openPgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { CollectionMemoryItems } from '../../../src/adapters/embedded/collectionMemoryItems.ts';
import { MemoryStore } from '../../../src/domain/memory/memoryStore.ts';
import { itemBytes } from '../../../src/domain/memory/itemBytes.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { twoTenants } from '../../support/twoTenants.ts';
import { tempDir } from '../../support/tempDirs.ts';

const BOUND = 1000;
/** An item of `n` bytes in all (its namespace, key and value as the quota counts them). */
const valueOf = (key: string, n: number) => ({ text: 'x'.repeat(n - itemBytes({ namespace: ['notes'], key, value: { text: '' } })) });

const opened: Store[] = [];
after(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** Opens the backend's store on the same data each call, the one opened before closed first (a restart). */
async function restartable(backend: (typeof BACKENDS)[number]): Promise<() => Promise<Store>> {
  const url = backend === 'postgres' ? await migratedDatabaseUrl() : null;
  const dataDir = tempDir('store-bytes-');
  let last: Store | undefined;
  return async () => {
    if (last) await opened.splice(opened.indexOf(last), 1)[0]!.close();
    last = url ? await openPgStore({ url }) : await openJournalStore({ dataDir });
    opened.push(last);
    return last;
  };
}

const memoryOn = (store: Store) => new MemoryStore(new CollectionMemoryItems(store), {}, null, undefined, { storeItems: Infinity, storeBytes: BOUND });

for (const backend of BACKENDS) {
  describe(`bytes of a tenant's store items (${backend})`, () => {
    it('puts at once stay within the bound, the rest refused naming it and storing nothing; replacing counts the difference; a delete makes room', async () => {
      const open = await restartable(backend);
      const memory = memoryOn(await open());
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => memory.put('tenant-a', ['notes'], `k${i}`, valueOf(`k${i}`, 300))));
      assert.deepEqual(answers.map((a) => a.ok).sort(), [false, false, false, true, true, true]);
      const refused = answers.find((a) => !a.ok)!;
      assert.ok(!refused.ok && refused.failure.kind === 'quota_exceeded');
      assert.match(
        refused.failure.detail,
        /Quota reached: this tenant would hold 1200 bytes of store items, more than the 1000 it may \(AGENTPLANE_MAX_STORE_BYTES_PER_TENANT\)/,
      );
      const held = await memory.search('tenant-a', { prefix: ['notes'], limit: 100 });
      assert.equal(held.length, 3);
      const heldKeys = new Set(held.map((i) => i.key));
      const refusedKey = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'].find((k) => !heldKeys.has(k))!;
      assert.equal(await memory.get('tenant-a', ['notes'], refusedKey), null);

      const [first, second] = [...heldKeys];
      // growing one held item past the bound is refused; shrinking it is taken, and the room it leaves is used
      assert.equal((await memory.put('tenant-a', ['notes'], first!, valueOf(first!, 500))).ok, false);
      assert.ok((await memory.put('tenant-a', ['notes'], first!, valueOf(first!, 200))).ok);
      assert.ok((await memory.put('tenant-a', ['notes'], second!, valueOf(second!, 400))).ok);
      assert.equal((await memory.put('tenant-a', ['notes'], refusedKey, valueOf(refusedKey, 150))).ok, false);
      // B's bytes are its own, and the shared space of an open server has no bound
      assert.ok((await memory.put('tenant-b', ['notes'], 'b', valueOf('b', 900))).ok);
      assert.ok((await memory.put('', ['notes'], 'open', valueOf('open', 5000))).ok);

      // restarted: the figure is the store's
      const again = memoryOn(await open());
      assert.equal((await again.put('tenant-a', ['notes'], refusedKey, valueOf(refusedKey, 150))).ok, false);
      await again.delete('tenant-a', ['notes'], second!);
      assert.ok((await again.put('tenant-a', ['notes'], refusedKey, valueOf(refusedKey, 400))).ok);
      assert.equal((await again.put('tenant-a', ['notes'], 'one-more', valueOf('one-more', 150))).ok, false);
    });

    it('items stored before the figure was kept are summed once; the sweep gives back what it removes', async () => {
      const open = await restartable(backend);
      const store = await open();
      const items = new CollectionMemoryItems(store);
      // as a server before this one stored them: no figure beside them
      const old = { scope: 'tenant-a', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', ttl_minutes: null, expires_at: null };
      await items.put({ ...old, namespace: ['notes'], key: 'old', value: valueOf('old', 700) });
      let now = new Date('2026-01-01T00:00:00.000Z');
      const memory = new MemoryStore(items, {}, null, () => now, { storeItems: Infinity, storeBytes: BOUND });
      assert.equal((await memory.put('tenant-a', ['notes'], 'new', valueOf('new', 400))).ok, false);
      assert.ok((await memory.put('tenant-a', ['notes'], 'short', valueOf('short', 300), { ttl: 1 })).ok);
      assert.equal((await memory.put('tenant-a', ['notes'], 'new', valueOf('new', 100))).ok, false);
      now = new Date(now.getTime() + 120_000);
      assert.equal(await memory.sweep(), 1);
      assert.ok((await memory.put('tenant-a', ['notes'], 'new', valueOf('new', 300))).ok);
    });
  });
}

describe('bytes of store items on the wire', () => {
  it('a PUT /store/items past AGENTPLANE_MAX_STORE_BYTES_PER_TENANT is 403 naming it, and stores nothing', async () => {
    const tenants = await twoTenants('agent-server', { AGENTPLANE_MAX_STORE_BYTES_PER_TENANT: '100000' });
    try {
      const put = (key: string, itemKey: string, n: number) =>
        tenants.send(key, 'PUT', '/store/items', { namespace: ['notes'], key: itemKey, value: valueOf(itemKey, n) });
      assert.equal((await put(tenants.keyA, 'a', 60_000)).status, 204);
      const refused = await put(tenants.keyA, 'b', 60_000);
      assert.equal(refused.status, 403);
      assert.match(((await refused.json()) as { detail: string }).detail, /bytes of store items.*AGENTPLANE_MAX_STORE_BYTES_PER_TENANT/);
      assert.equal(await (await tenants.send(tenants.keyA, 'GET', '/store/items?namespace=notes&key=b')).json(), null);
      assert.equal((await put(tenants.keyB, 'b', 60_000)).status, 204);
    } finally {
      await tenants.app.close();
    }
  });
});
