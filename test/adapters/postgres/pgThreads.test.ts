// The threads on PostgreSQL (their table, the searches in SQL) hold to the ThreadsRepository
// contract the embedded store's collection does: one database per case.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgThreads } from '../../../src/adapters/postgres/pgThreads.ts';
import { openStore } from '../../support/bothStores.ts';
import { thread, threadsRepositoryContract } from '../../support/threadsRepositoryContract.ts';
import { isByTheClock, tapStatements } from '../../support/pgStatements.ts';

/** A fresh database's store (closed when the file ends). */
const pgStore = async () => (await openStore('postgres')) as PgStore;

describe('threads on PostgreSQL', () => {
  threadsRepositoryContract(async () => {
    const store = await pgStore();
    return { threads: new PgThreads(store), store };
  });
});

test("a thread read for a run's creation on PostgreSQL leaves its values out, and goes in one statement with a get beside it", async () => {
  const store = await pgStore();
  const threads = new PgThreads(store);
  await threads.insert(thread('t1', 'tenant-a', 1, { values: { messages: [{ content: 'x'.repeat(10_000) }] } }));
  const sent: string[] = [];
  const restore = tapStatements((text) => sent.push(text));
  try {
    const [head, other] = await Promise.all([threads.withoutValues('t1'), store.collection('assistants').get('none')]);
    assert.equal(head?.thread_id, 't1');
    assert.equal('values' in head!, false, 'the values are not read');
    assert.equal(other, undefined);
    assert.equal(sent.filter((text) => !isByTheClock(text)).length, 1);
  } finally {
    restore();
  }
});
