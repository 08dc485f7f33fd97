// The control plane's engine reads through a store that hides the deployments a listener
// reconciles (hidingStore.ts): its reads leave out what the test refuses, and everything
// else, the liveness ping included, is the store's own. The ping was once dropped by the
// wrapper, so a database that was down still looked up through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { hidingStore } from '../../../src/adapters/embedded/hidingStore.ts';

interface Item {
  id: string;
  hidden: boolean;
}

test('reads leave out the records the test refuses; writes and other collections pass through', async () => {
  const base = await openJournalStore({ dataDir: null });
  const view = hidingStore(base, { items: async (value) => !(value as Item).hidden });
  const items = view.collection<Item>('items');
  await items.put('a', { id: 'a', hidden: false });
  await items.put('b', { id: 'b', hidden: true });
  assert.deepEqual(await items.get('a'), { id: 'a', hidden: false });
  assert.equal(await items.get('b'), undefined);
  assert.deepEqual(
    (await items.list()).map((i) => i.id),
    ['a'],
  );
  // the write reached the store itself, and a collection the test does not name is not filtered
  assert.deepEqual(await base.collection<Item>('items').get('b'), { id: 'b', hidden: true });
  await view.collection<Item>('others').put('c', { id: 'c', hidden: true });
  assert.deepEqual(await view.collection<Item>('others').get('c'), { id: 'c', hidden: true });
  await base.close();
});

test("the ping is the store's own: a store that is down is down through the view too", async () => {
  const base = await openJournalStore({ dataDir: null });
  let pings = 0;
  const down = Object.assign(Object.create(base) as typeof base, {
    ping: async () => {
      pings += 1;
      throw new Error('connection refused');
    },
  });
  await assert.rejects(hidingStore(down, {}).ping(), /connection refused/);
  assert.equal(pings, 1);
  await base.close();
});
