import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { segments } from '../../../src/adapters/embedded/dataDir.ts';
import { ROOT, tempDir } from '../../support/server.ts';
import { childImport } from '../../support/childImports.ts';

interface Item {
  id: string;
  tenant: string;
  n: number;
}

// The Store contract both backends keep (insertion order, where-queries, updates, batches,
// containment, orderBy) is test/support/storeContract.ts, run here by
// journalStore.contract.test.ts; this file holds what only the embedded store does.

test('values read are frozen: a caller cannot change a record the store holds', async () => {
  const store = await openJournalStore({ dataDir: null });
  const items = store.collection<Item>('items', { indexes: ['tenant'] });
  await items.insert('i1', { id: 'i1', tenant: 'odd', n: 1 });
  const got = (await items.get('i1'))!;
  assert.throws(() => ((got as { n: number }).n = 5), TypeError);
  const [listed] = await items.list({ where: { tenant: 'odd' } });
  assert.throws(() => ((listed as { n: number }).n = 5), TypeError);
  assert.equal((await items.get('i1'))?.n, 1);
});

test('state survives close and reopen, through snapshots and the journal, with order kept', async () => {
  const dataDir = tempDir();
  let store = await openJournalStore({ dataDir, compactBytes: 2_000 }); // small: forces snapshots
  let items = store.collection<Item>('items');
  for (let n = 0; n < 300; n += 1) await items.put(`k${n}`, { id: `k${n}`, tenant: 't', n });
  for (let n = 0; n < 300; n += 3) await items.delete(`k${n}`);
  await items.update('k1', (cur) => ({ ...cur, n: -1 }));
  await store.write([
    { collection: 'items', id: 'batch-a', value: { id: 'batch-a', tenant: 't', n: 1000 } },
    { collection: 'other', id: 'batch-b', value: { id: 'batch-b', tenant: 't', n: 1001 } },
  ]);
  await store.close();
  store = await openJournalStore({ dataDir });
  items = store.collection<Item>('items');
  const all = await items.list();
  assert.equal(all.length, 201);
  assert.equal(all[0].id, 'k1');
  assert.equal(all[0].n, -1);
  assert.equal(all.at(-1)!.id, 'batch-a');
  assert.deepEqual(await store.collection<Item>('other').get('batch-b'), { id: 'batch-b', tenant: 't', n: 1001 });
  assert.ok(fs.readdirSync(path.join(dataDir, 'collections', 'items')).length > 0, 'snapshots were written');
  await store.close();
});

test('what is written while a snapshot passes over a large collection reopens as it was left', async () => {
  // the snapshot finds a shard's records by a pass over the collection that yields to
  // requests every 20,000 records: deletes, puts and updates land in between
  const dataDir = tempDir();
  let store = await openJournalStore({ dataDir });
  let items = store.collection<Item>('items');
  const batch = (from: number, to: number) =>
    store.write(
      Array.from({ length: to - from }, (_, i) => ({ collection: 'items', id: `k${from + i}`, value: { id: `k${from + i}`, tenant: 't', n: from + i } })),
    );
  for (let n = 0; n < 50_000; n += 5_000) await batch(n, n + 5_000);
  const snapshot = store.flush();
  for (let n = 0; n < 50_000; n += 500) await items.delete(`k${n}`);
  await items.update('k1', (cur) => ({ ...cur, n: -1 }));
  await items.put('late', { id: 'late', tenant: 't', n: 50_000 });
  await snapshot;
  await store.close();
  store = await openJournalStore({ dataDir });
  items = store.collection<Item>('items');
  assert.equal(await items.count(), 50_000 - 100 + 1);
  assert.equal(await items.get('k0'), undefined);
  assert.equal(await items.get('k49500'), undefined);
  assert.equal((await items.get('k1'))?.n, -1);
  assert.deepEqual(
    (await items.list({ reverse: true, limit: 2 })).map((i) => i.id),
    ['late', 'k49999'],
  );
  await store.close();
});

test('the journal grows to the size of the snapshot before it is snapshotted again, and reopens whole', async () => {
  const dataDir = tempDir();
  let store = await openJournalStore({ dataDir, compactBytes: 1_000 });
  let items = store.collection<Item & { pad: string }>('items');
  const pad = 'p'.repeat(1_000);
  for (let n = 0; n < 60; n += 1) await items.put(`big${n}`, { id: `big${n}`, tenant: 't', n, pad });
  await store.flush(); // a snapshot of ~60 kB, an empty journal after it
  const newest = () => Math.max(...segments(dataDir).map((s) => s.number));
  const settle = async () => {
    for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  const before = newest();
  // ~30 kB: thirty times compactBytes, half the snapshot: no snapshot yet
  for (let n = 0; n < 30; n += 1) await items.put(`big${n}`, { id: `big${n}`, tenant: 't', n: n + 1_000, pad });
  await settle();
  assert.equal(newest(), before, 'a journal smaller than the snapshot is not snapshotted');
  // past the snapshot's size: snapshotted in the background (the journal rotates)
  for (let n = 30; n < 70; n += 1) await items.put(`big${n}`, { id: `big${n}`, tenant: 't', n: n + 1_000, pad });
  await settle();
  assert.ok(newest() > before, 'a journal as big as the snapshot is snapshotted');
  await store.close();
  store = await openJournalStore({ dataDir, compactBytes: 1_000 });
  items = store.collection<Item & { pad: string }>('items');
  assert.equal((await items.list()).length, 70);
  assert.equal((await items.get('big69'))!.n, 1_069);
  // a reopened store knows its snapshot's size from the files
  const reopened = newest();
  for (let n = 0; n < 30; n += 1) await items.put(`big${n}`, { id: `big${n}`, tenant: 't', n: n + 2_000, pad });
  await settle();
  assert.equal(newest(), reopened, 'after a start too, a journal smaller than the snapshot is not snapshotted');
  await store.close();
});

test('the journal is snapshotted once it reaches maxJournalBytes, however big the snapshot: a start replays at most that much', async () => {
  const dataDir = tempDir();
  const store = await openJournalStore({ dataDir, compactBytes: 1_000, maxJournalBytes: 20_000 });
  try {
    const items = store.collection<Item & { pad: string }>('items');
    const pad = 'p'.repeat(1_000);
    for (let n = 0; n < 60; n += 1) await items.put(`big${n}`, { id: `big${n}`, tenant: 't', n, pad });
    await store.flush(); // a snapshot of ~60 kB, an empty journal after it
    const newest = () => Math.max(...segments(dataDir).map((s) => s.number));
    const before = newest();
    // ~25 kB: under the snapshot's size, over maxJournalBytes: snapshotted in the background (the journal rotates)
    for (let n = 0; n < 25; n += 1) await items.put(`big${n}`, { id: `big${n}`, tenant: 't', n: n + 1_000, pad });
    for (let i = 0; i < 100 && newest() === before; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(newest() > before, 'a journal of maxJournalBytes is snapshotted');
  } finally {
    await store.close();
  }
});

test('every acknowledged write survives kill -9', async () => {
  const dataDir = tempDir();
  const journalStore = childImport('src/adapters/embedded/journalStore.ts');
  const child = spawn(process.execPath, [...journalStore.flags, path.join(ROOT, 'test/fixtures/store-writer.mjs'), journalStore.url, dataDir, '20000'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let lastAck = -1;
  let buffer = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('ack ')) lastAck = Number(line.slice(4));
      // kill while snapshots and journal rotation are happening (compactBytes is small)
      if (lastAck >= 1500 && child.exitCode === null) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((resolve) => child.once('exit', resolve));
  const store = await openJournalStore({ dataDir });
  const items = store.collection<{ id: string; n: number }>('items');
  for (let n = 0; n <= lastAck; n += 1) assert.ok(await items.get(`item-${n}`), `acknowledged item-${n} is present`);
  const first = (await items.get('item-0'))!;
  assert.ok(first.n >= lastAck - 7, 'the last acknowledged update of item-0 is kept');
  await store.close();
});

test('newest-first pages stay correct through many deletions (hole sweeping)', async () => {
  const store = await openJournalStore({ dataDir: null });
  const items = store.collection<Item>('items', { indexes: ['tenant'] });
  for (let n = 0; n < 1000; n += 1) await items.put(`i${n}`, { id: `i${n}`, tenant: 't', n });
  for (let n = 0; n < 1000; n += 1) if (n % 10 !== 0) await items.delete(`i${n}`);
  assert.deepEqual(
    (await items.list({ reverse: true, limit: 3 })).map((i) => i.n),
    [990, 980, 970],
  );
  assert.deepEqual(
    (await items.list({ where: { tenant: 't' }, offset: 98 })).map((i) => i.n),
    [980, 990],
  );
  await items.put('i5', { id: 'i5', tenant: 't', n: 5 });
  assert.deepEqual(
    (await items.list({ where: { tenant: 't' }, reverse: true, limit: 1 })).map((i) => i.n),
    [5],
  );
  assert.equal(await items.count(), 101);
});

test('a count by one indexed field is the index size, through updates and deletes; two indexed fields walk the smaller and check the other', async () => {
  const store = await openJournalStore({ dataDir: null });
  const items = store.collection<Item & { kind: string }>('items', { indexes: ['tenant', 'kind'] });
  for (let n = 0; n < 40; n += 1) await items.insert(`i${n}`, { id: `i${n}`, tenant: n < 4 ? 'small' : 'big', kind: n % 2 ? 'odd' : 'even', n });
  assert.equal(await items.count({ where: { tenant: 'small' } }), 4);
  assert.equal(await items.count({ where: { tenant: 'nobody' } }), 0);
  await items.update('i0', (cur) => ({ ...cur, tenant: 'big' }));
  assert.equal(await items.delete('i1'), true);
  assert.equal(await items.count({ where: { tenant: 'small' } }), 2, 'the index follows an update and a delete');
  assert.equal(await items.count({ where: { tenant: 'big' } }), 37);
  // both orders of the two fields give the same records, in insertion order
  assert.deepEqual(
    (await items.list({ where: { kind: 'even', tenant: 'small' } })).map((i) => i.n),
    [2],
  );
  assert.deepEqual(
    (await items.list({ where: { tenant: 'big', kind: 'odd' } })).map((i) => i.n),
    Array.from({ length: 18 }, (_, k) => 5 + 2 * k),
  );
  assert.equal(await items.count({ where: { tenant: 'big', kind: 'odd' } }), 18);
});
