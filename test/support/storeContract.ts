// What every Store answers (ports/store.ts), whichever backend keeps the records: the embedded
// store (test/adapters/embedded/journalStore.contract.test.ts) and PostgreSQL
// (test/adapters/postgres/pgStore.contract.test.ts) run this one body, as the repositories'
// contracts run over both. What only one backend shows stays in its own tests: the embedded
// store's frozen values, journal and snapshots; PostgreSQL's migrations, indexes and tables.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/domain/ports/store.ts';
import { assertOrderBy } from './orderByContract.ts';

interface Item {
  id: string;
  tenant: string;
  n: number;
}

const numbers = (items: Item[]) => items.map((i) => i.n);

export function storeContract(open: () => Promise<Store>): void {
  it('keeps insertion order; where-queries, filters, reverse, offset and limit; insert never overwrites', async () => {
    const store = await open();
    const items = store.collection<Item>('items', { indexes: ['tenant'] });
    for (let n = 0; n < 10; n += 1) assert.equal(await items.insert(`i${n}`, { id: `i${n}`, tenant: n % 2 ? 'odd' : 'even', n }), true);
    assert.equal(await items.insert('i0', { id: 'i0', tenant: 'even', n: 99 }), false, 'insert never overwrites');
    assert.equal((await items.get('i0'))?.n, 0);
    assert.deepEqual(numbers(await items.list({ where: { tenant: 'odd' } })), [1, 3, 5, 7, 9]);
    assert.deepEqual(numbers(await items.list({ reverse: true, offset: 1, limit: 3 })), [8, 7, 6]);
    assert.deepEqual(numbers(await items.list({ reverse: true, filter: (i) => i.n % 3 === 0, offset: 1, limit: 2 })), [6, 3]);
    assert.equal(await items.count(), 10);
    assert.equal(await items.count({ filter: (i) => i.n > 6 }), 3);
    assert.equal(await items.count({ where: { tenant: 'even' } }), 5);
  });

  it('updates in place (the index follows, the insertion place is kept) and deletes once', async () => {
    const store = await open();
    const items = store.collection<Item>('items', { indexes: ['tenant'] });
    for (let n = 0; n < 10; n += 1) await items.put(`i${n}`, { id: `i${n}`, tenant: n % 2 ? 'odd' : 'even', n });
    assert.equal((await items.update('i1', (cur) => ({ ...cur, tenant: 'even' })))?.tenant, 'even');
    assert.deepEqual(numbers(await items.list({ where: { tenant: 'odd' } })), [3, 5, 7, 9], 'the index follows updates');
    assert.deepEqual(numbers(await items.list()), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'an update keeps the insertion place');
    assert.equal((await items.update('i2', () => undefined))?.n, 2, 'a change that answers nothing leaves the record');
    assert.equal(await items.update('missing', (cur) => cur), undefined);
    assert.equal(await items.delete('i3'), true);
    assert.equal(await items.delete('i3'), false);
    assert.equal(await items.get('i3'), undefined);
  });

  it('keeps a record as written, its keys in their order', async () => {
    const store = await open();
    const items = store.collection<Item>('items');
    await items.put('ordered', { n: 1, tenant: 't', id: 'ordered' });
    assert.equal(JSON.stringify(await items.get('ordered')), '{"n":1,"tenant":"t","id":"ordered"}');
  });

  it('loses none of many concurrent read-modify-writes of one record', async () => {
    const store = await open();
    const items = store.collection<Item>('items');
    await items.put('counter', { id: 'counter', tenant: 't', n: 0 });
    await Promise.all(Array.from({ length: 50 }, () => items.update('counter', (cur) => ({ ...cur, n: cur.n + 1 }))));
    assert.equal((await items.get('counter'))!.n, 50);
  });

  it('writes a batch across collections all or nothing', async () => {
    const store = await open();
    const items = store.collection<Item>('items');
    await items.put('i0', { id: 'i0', tenant: 't', n: 0 });
    await assert.rejects(
      store.write([
        { collection: 'items', id: 'batch-a', value: { id: 'batch-a', tenant: 't', n: 1 } },
        { collection: 'items', id: 'batch-b', value: { bad: 1n } as never },
      ]),
    );
    assert.equal(await items.get('batch-a'), undefined, 'a failed batch leaves nothing behind');
    await store.write([
      { collection: 'items', id: 'batch-a', value: { id: 'batch-a', tenant: 't', n: 1 } },
      { collection: 'other', id: 'batch-b', value: { id: 'batch-b', tenant: 't', n: 2 } },
      { collection: 'items', id: 'i0', delete: true },
    ]);
    assert.equal((await store.collection<Item>('other').get('batch-b'))!.n, 2);
    assert.equal(await items.get('i0'), undefined);
    assert.ok(
      ['items', 'other'].every((name) => store.collectionNames().includes(name)),
      store.collectionNames().join(', '),
    );
    await store.ping();
  });

  it('filters and counts over many records, newest first, and a batch takes its places in op order', async () => {
    const store = await open();
    await store.write(Array.from({ length: 1200 }, (_, n) => ({ collection: 'many', id: `m${n}`, value: { id: `m${n}`, tenant: 't', n } })));
    const many = store.collection<Item>('many');
    assert.deepEqual(numbers(await many.list({ reverse: true, filter: (i) => i.n % 100 === 0, limit: 3 })), [1100, 1000, 900]);
    assert.equal(await many.count({ filter: (i) => i.n % 2 === 0 }), 600);
    await store.write(Array.from({ length: 10 }, (_, n) => ({ collection: 'few', id: `f${n}`, value: { id: `f${n}`, tenant: 't', n } })));
    assert.deepEqual(numbers(await store.collection<Item>('few').list()), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('answers the records of many ids in their order, undefined where there is none', async () => {
    const store = await open();
    const items = store.collection<Item>('items');
    for (const id of ['r1', 'r2', 'r3']) await items.put(id, { id, tenant: 't', n: Number(id.slice(1)) });
    assert.deepEqual(
      (await items.getMany(['r3', 'missing', 'r1', 'r3'])).map((r) => r?.id),
      ['r3', undefined, 'r1', 'r3'],
    );
    assert.deepEqual(await items.getMany([]), []);
  });

  it('finds records by containment: each entry equal, not an array subset or part of a nested object', async () => {
    const store = await open();
    type Doc = { id: string; metadata?: Record<string, unknown> };
    const docs = store.collection<Doc>('docs', { containment: ['metadata'] });
    await docs.put('a', { id: 'a', metadata: { team: 'x', tags: ['p', 'q'], nested: { k: 1, l: 2 } } });
    await docs.put('b', { id: 'b', metadata: { team: 'y' } });
    await docs.put('c', { id: 'c' });
    const ids = async (wanted: Record<string, unknown>) => (await docs.list({ contains: { metadata: wanted } })).map((d) => d.id);
    assert.deepEqual(await ids({ team: 'x' }), ['a']);
    assert.deepEqual(await ids({ tags: ['p', 'q'] }), ['a']);
    assert.deepEqual(await ids({ tags: ['p'] }), []);
    assert.deepEqual(await ids({ nested: { k: 1 } }), []);
    assert.deepEqual(await ids({}), ['a', 'b', 'c']);
    assert.equal(await docs.count({ contains: { metadata: { team: 'y' } } }), 1);
  });

  it('sorts by a field in code-unit order (insertion order among equals), reverse descending, with where, offset and limit', async () => {
    await assertOrderBy(await open());
  });

  it('sets fields in place: on the record as stored when the write applies, its keys in their order, a deleted one left deleted', async () => {
    const store = await open();
    type Doc = { id: string; tenant: string; n: number; [field: string]: unknown };
    const docs = store.collection<Doc>('docs', { indexes: ['tenant'] });
    await docs.put('a', { id: 'a', tenant: 't', n: 1, metadata: { z: 1, a: 2 } });
    // written after the setter read it: what it does not set stays
    await docs.put('a', { id: 'a', tenant: 't', n: 1, metadata: { z: 1, a: 2 }, patched: true });
    await store.write([{ collection: 'docs', id: 'a', set: { n: 2, tenant: 'u', added: { y: 1, b: 2 } } }]);
    const stored = await docs.get('a');
    assert.deepEqual(stored, { id: 'a', tenant: 'u', n: 2, metadata: { z: 1, a: 2 }, patched: true, added: { y: 1, b: 2 } });
    assert.deepEqual(Object.keys(stored!), ['id', 'tenant', 'n', 'metadata', 'patched', 'added'], 'the keys keep their order, new ones after');
    assert.deepEqual(Object.keys(stored!.metadata as object), ['z', 'a']);
    assert.deepEqual(Object.keys(stored!.added as object), ['y', 'b']);
    assert.deepEqual(
      (await docs.list({ where: { tenant: 'u' } })).map((d) => d.id),
      ['a'],
      'the index follows',
    );
    // a record gone when the write applies stays gone; the other writes of the batch are made
    await docs.delete('a');
    await store.write([
      { collection: 'docs', id: 'a', set: { n: 3 } },
      { collection: 'docs', id: 'b', value: { id: 'b', tenant: 't', n: 4 } },
    ]);
    assert.equal(await docs.get('a'), undefined);
    assert.equal((await docs.get('b'))?.n, 4);
    // in one write, a set takes the record as the ops before it leave it
    await store.write([
      { collection: 'docs', id: 'c', value: { id: 'c', tenant: 't', n: 5 } },
      { collection: 'docs', id: 'c', set: { n: 6 } },
      { collection: 'docs', id: 'c', set: { tenant: 'v' } },
      { collection: 'docs', id: 'b', delete: true },
      { collection: 'docs', id: 'b', set: { n: 7 } },
    ]);
    assert.deepEqual(await docs.get('c'), { id: 'c', tenant: 'v', n: 6 });
    assert.equal(await docs.get('b'), undefined, 'deleted earlier in the same write: not set back');
    // `whileAny` over any collection's indexed fields (PostgreSQL's tables of no area too)
    const whileTenant = (tenant: string) => ({ collection: 'docs', where: { tenant }, set: { n: 8 } });
    await store.write([{ collection: 'docs', id: 'c', set: { n: 7 }, whileAny: whileTenant('nobody') }]);
    assert.equal((await docs.get('c'))?.n, 7);
    await store.write([{ collection: 'docs', id: 'c', set: { n: 7 }, whileAny: whileTenant('v') }]);
    assert.equal((await docs.get('c'))?.n, 8);
  });

  it("sets other values while a record of another collection matches, as that collection is when the write applies (a thread's runs)", async () => {
    const store = await open();
    type Thread = { thread_id: string; status: string; created_at: string; updated_at: string; metadata: Record<string, unknown>; values?: unknown };
    type Run = { run_id: string; thread_id: string; status: string; created_at: string; kwargs: object };
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    const runs = store.collection<Run>('runs', { indexes: ['thread_id', 'status'] });
    const at = new Date().toISOString();
    await threads.put('t', { thread_id: 't', status: 'busy', created_at: at, updated_at: at, metadata: { m: 1 } });
    const settle = (values: unknown) =>
      store.write([
        {
          collection: 'threads',
          id: 't',
          set: { status: 'idle', values },
          whileAny: { collection: 'runs', where: { thread_id: 't', status: 'pending' }, set: { status: 'busy' } },
        },
      ]);
    await settle(1);
    assert.deepEqual(await threads.get('t'), { thread_id: 't', status: 'idle', created_at: at, updated_at: at, metadata: { m: 1 }, values: 1 });
    await runs.put('r', { run_id: 'r', thread_id: 't', status: 'pending', created_at: at, kwargs: {} });
    await settle(2);
    assert.deepEqual(await threads.get('t'), { thread_id: 't', status: 'busy', created_at: at, updated_at: at, metadata: { m: 1 }, values: 2 });
    assert.deepEqual(
      (await threads.list({ where: { status: 'busy' } })).map((t) => t.thread_id),
      ['t'],
      'the index follows the status chosen',
    );
    await runs.put('r', { run_id: 'r', thread_id: 't', status: 'success', created_at: at, kwargs: {} });
    await settle(3);
    assert.equal((await threads.get('t'))?.status, 'idle');
    assert.equal(await threads.count({ where: { status: 'busy' } }), 0);
  });
}
