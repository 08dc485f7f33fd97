// The memory store's rules in process, over the items kept in memory (the embedded store's
// collection): scopes kept apart, a time to live that ends an item, that a read restarts, and
// that the sweep acts on; searches by namespace prefix and value filter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionMemoryItems } from '../../../src/adapters/embedded/collectionMemoryItems.ts';
import { MemoryStore } from '../../../src/domain/memory/memoryStore.ts';

async function memory(ttl: ConstructorParameters<typeof MemoryStore>[1] = {}) {
  let now = new Date('2026-01-01T00:00:00.000Z');
  const store = new MemoryStore(new CollectionMemoryItems(await openJournalStore({ dataDir: null })), ttl, null, () => now);
  const advance = (minutes: number) => (now = new Date(now.getTime() + minutes * 60_000));
  return { store, advance };
}

test('an item is its scope’s: another scope neither reads, finds nor lists it', async () => {
  const { store } = await memory();
  await store.put('tenant-a', ['docs', 'x'], 'k', { v: 1 });
  assert.deepEqual((await store.get('tenant-a', ['docs', 'x'], 'k'))?.value, { v: 1 });
  assert.equal(await store.get('tenant-b', ['docs', 'x'], 'k'), null);
  assert.deepEqual(await store.search('tenant-b', { prefix: ['docs'] }), []);
  assert.deepEqual(await store.listNamespaces('tenant-b'), []);
  await store.delete('tenant-b', ['docs', 'x'], 'k');
  assert.ok(await store.get('tenant-a', ['docs', 'x'], 'k'));
});

test('an item past its time to live is gone to reads and searches, and the sweep removes it', async () => {
  const { store, advance } = await memory({ refresh_on_read: false });
  await store.put('', ['n'], 'short', { v: 1 }, { ttl: 1 });
  await store.put('', ['n'], 'kept', { v: 2 });
  advance(2);
  assert.equal(await store.get('', ['n'], 'short'), null);
  assert.deepEqual(
    (await store.search('', { prefix: ['n'] })).map((i) => i.key),
    ['kept'],
  );
  assert.equal(await store.sweep(), 1);
  assert.equal(await store.sweep(), 0);
});

test('a read restarts the time to live unless it says not to', async () => {
  const { store, advance } = await memory();
  await store.put('', ['n'], 'k', { v: 1 }, { ttl: 10 });
  advance(8);
  assert.ok(await store.get('', ['n'], 'k'));
  advance(8);
  assert.ok(await store.get('', ['n'], 'k', false), 'the read at minute 8 restarted its ten minutes');
  advance(3);
  assert.equal(await store.get('', ['n'], 'k'), null, 'the read at minute 16 did not');
});

test('a search matches a namespace prefix (with wildcards) and the value filter, newest first', async () => {
  const { store, advance } = await memory();
  await store.put('', ['users', 'u1', 'prefs'], 'a', { color: 'red' });
  advance(1);
  await store.put('', ['users', 'u2', 'prefs'], 'b', { color: 'blue' });
  advance(1);
  await store.put('', ['users', 'u2', 'notes'], 'c', { color: 'red' });
  assert.deepEqual(
    (await store.search('', { prefix: ['users', '*', 'prefs'] })).map((i) => i.key),
    ['b', 'a'],
  );
  assert.deepEqual(
    (await store.search('', { prefix: ['users'], filter: { color: 'red' } })).map((i) => i.key),
    ['c', 'a'],
  );
});
