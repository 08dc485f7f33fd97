// What every ThreadsRepository answers, whichever backend keeps the threads: the embedded
// store's collection (test/adapters/embedded/collectionThreads.test.ts) and PostgreSQL's table
// with its searches in SQL (test/adapters/postgres/pgThreads.test.ts) run this one body.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ThreadRecord } from '../../src/domain/agent/records.ts';
import type { ThreadsRepository } from '../../src/domain/ports/threadsRepository.ts';
import type { Store } from '../../src/domain/ports/store.ts';

export interface OpenedThreads {
  threads: ThreadsRepository;
  /** The store the repository writes to (putOp's writes go through it). */
  store: Pick<Store, 'write'>;
}

/** A thread of `owner`, created `n` seconds into the day. */
export function thread(id: string, owner: string, n: number, fields: Partial<ThreadRecord> = {}): ThreadRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return { thread_id: id, ...(owner ? { owner } : {}), created_at: at, updated_at: at, metadata: {}, status: 'idle', config: {}, interrupts: {}, ...fields };
}

const ids = (threads: ThreadRecord[]) => threads.map((t) => t.thread_id);

export function threadsRepositoryContract(open: () => Promise<OpenedThreads>): void {
  it('stores a thread once: a second insert of its id is refused and changes nothing', async () => {
    const { threads } = await open();
    assert.equal(await threads.insert(thread('t1', 'tenant-a', 1, { metadata: { n: 1 } })), true);
    assert.equal(await threads.insert(thread('t1', 'tenant-b', 2, { metadata: { n: 2 } })), false);
    const stored = await threads.get('t1');
    assert.equal(stored?.owner, 'tenant-a');
    assert.deepEqual(stored?.metadata, { n: 1 });
    assert.equal(await threads.get('missing'), undefined);
  });

  it('reads a thread without its values: every other field as `get` reads it, in the same order; nothing for a missing thread', async () => {
    const { threads } = await open();
    const values = { messages: [{ type: 'ai', content: 'say "hi" \\ 😀 \u2028' }], n: 1.5 };
    await threads.insert(thread('t1', 'tenant-a', 1, { metadata: { z: 1, a: { y: 'x"y' } }, config: { configurable: { k: [1, null] } }, values }));
    const whole = (await threads.get('t1'))!;
    const head = (await threads.withoutValues('t1'))!;
    const { values: _left, ...rest } = whole;
    const { values: kept, ...headRest } = head as ThreadRecord;
    // the embedded store hands out the record it holds; a store that leaves the values out leaves them out whole
    if (kept !== undefined) assert.deepEqual(kept, values);
    assert.equal(JSON.stringify(headRest), JSON.stringify(rest));
    assert.equal(await threads.withoutValues('missing'), undefined);
  });

  it('changes a thread atomically, leaves it when the change answers nothing, and changes no thread that is missing', async () => {
    const { threads } = await open();
    await threads.insert(thread('t1', 'tenant-a', 1));
    const busy = await threads.update('t1', (t) => ({ ...t, status: 'busy' }));
    assert.equal(busy?.status, 'busy');
    assert.equal((await threads.get('t1'))?.status, 'busy');
    const left = await threads.update('t1', () => undefined);
    assert.equal(left?.status, 'busy');
    let called = false;
    assert.equal(await threads.update('missing', (t) => ((called = true), t)), undefined);
    assert.equal(called, false);
    assert.equal(await threads.get('missing'), undefined);
  });

  it("writes a thread through its write operation, in one write with other records'", async () => {
    const { threads, store } = await open();
    await store.write([threads.putOp(thread('t1', 'tenant-a', 1)), threads.putOp(thread('t2', 'tenant-b', 2, { status: 'busy' }))]);
    assert.equal((await threads.get('t1'))?.owner, 'tenant-a');
    assert.equal((await threads.get('t2'))?.status, 'busy');
  });

  it("lists every owner's threads that have a ttl, and no other", async () => {
    const { threads } = await open();
    await threads.insert(thread('kept', 'tenant-a', 1));
    await threads.insert(thread('a', 'tenant-a', 2, { ttl: { strategy: 'delete', ttl_minutes: 5 } }));
    await threads.insert(thread('b', 'tenant-b', 3, { ttl: { strategy: 'keep_latest', ttl_minutes: 1 } }));
    assert.deepEqual(ids(await threads.withTtl()).sort(), ['a', 'b']);
  });

  it("searches and counts one owner's threads by status, metadata and ids, sorted and paged", async () => {
    const { threads } = await open();
    await threads.insert(thread('t1', 'tenant-a', 1, { metadata: { team: 'x' } }));
    await threads.insert(thread('t2', 'tenant-a', 2, { status: 'busy', metadata: { team: 'x' } }));
    await threads.insert(thread('t3', 'tenant-a', 3, { metadata: { team: 'y' } }));
    await threads.insert(thread('other', 'tenant-b', 4, { metadata: { team: 'x' } }));
    const newest = { sortBy: 'created_at', order: 'desc', offset: 0 } as const;
    assert.deepEqual(ids(await threads.search({ owner: 'tenant-a' }, newest)), ['t3', 't2', 't1']);
    assert.deepEqual(ids(await threads.search({ owner: 'tenant-a' }, { ...newest, order: 'asc', offset: 1, limit: 1 })), ['t2']);
    assert.deepEqual(ids(await threads.search({ owner: 'tenant-a', metadata: { team: 'x' } }, newest)), ['t2', 't1']);
    assert.deepEqual(ids(await threads.search({ owner: 'tenant-a', status: 'busy' }, newest)), ['t2']);
    assert.deepEqual(ids(await threads.search({ owner: 'tenant-a', ids: ['t1', 't3', 'other'] }, { sortBy: 'thread_id', order: 'asc', offset: 0 })), [
      't1',
      't3',
    ]);
    assert.equal(await threads.count({ owner: 'tenant-a' }), 3);
    assert.equal(await threads.count({ owner: 'tenant-a', metadata: { team: 'x' } }), 2);
    assert.equal(await threads.count({ owner: 'tenant-c' }), 0);
  });
}
