// What the embedded store holds for each record beside the record itself: its entry in the
// map by id, its place in the collection's order and in each index. A server holding 100,000
// threads holds 100,000 of these, so each structure kept per record is a few MB of its RSS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';

test("the store's bookkeeping costs under 175 bytes of heap a record", async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const store = await openJournalStore({ dataDir: null });
  try {
    const records = store.collection<object>('bookkeeping', { indexes: ['status'] });
    // one shared frozen value and ids made beforehand: what is measured is the store's own
    const value = Object.freeze({ status: 'idle' });
    const count = 50_000;
    const ids = Array.from({ length: count }, (_, i) => `record-${String(i).padStart(8, '0')}`);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (const id of ids) await records.insert(id, value);
    gc();
    const perRecord = (process.memoryUsage().heapUsed - before) / count;
    // ~160 bytes a record (the map by id, the entry, the index's map and both orders' slots);
    // ~210 with a set of ids per snapshot shard and a map of places in the collection's order
    assert.ok(perRecord < 175, `${Math.round(perRecord)} bytes of heap a record`);
    assert.equal((await records.list({ where: { status: 'idle' }, reverse: true, limit: 1 }))[0], value);
    assert.equal(await records.count(), count);
  } finally {
    await store.close();
  }
});
