// A new thread's record is built as literals (records.ts newThread), not by spreads: the same
// fields in the same order as before, with its owner only when it has one and its ttl, last,
// only when the create asked for one — what the journal writes of a created thread is unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { newThread } from '../../../src/domain/agent/records.ts';
import { Threads, type ThreadDeps } from '../../../src/domain/agent/threads/threads.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { KeyedLock } from '../../../src/domain/keyedLock.ts';
import { tempDir } from '../../support/server.ts';

const FIELDS = ['thread_id', 'created_at', 'updated_at', 'metadata', 'status', 'config', 'interrupts', 'values'];

test("a new thread's fields, in order: its owner after its id when it has one, its ttl last when given", () => {
  const plain = newThread('t', { a: 1 }, '');
  assert.deepEqual(Object.keys(plain), FIELDS);
  assert.equal(plain.created_at, plain.updated_at);
  assert.deepEqual(
    { ...plain, created_at: '', updated_at: '' },
    {
      thread_id: 't',
      created_at: '',
      updated_at: '',
      metadata: { a: 1 },
      status: 'idle',
      config: {},
      interrupts: {},
      values: null,
    },
  );
  const owned = newThread('t', {}, 'tenant', { strategy: 'delete', ttl_minutes: 5 });
  assert.deepEqual(Object.keys(owned), ['thread_id', 'owner', ...FIELDS.slice(1), 'ttl']);
  assert.equal(owned.owner, 'tenant');
  assert.deepEqual(owned.ttl, { strategy: 'delete', ttl_minutes: 5 });
});

test('a create stores its ttl (the strategy defaulted) and its owner; one without stores neither', async () => {
  const dataDir = tempDir('agentplane-new-thread-');
  try {
    const store = await openJournalStore({ dataDir });
    const threads = new CollectionThreads(store);
    const deps = { threads, locks: new KeyedLock() } as unknown as ThreadDeps;
    const made = await new Threads(deps, 'tenant').create({ metadata: { m: 1 }, ttl: { ttl: 10 } });
    assert.ok(made.ok);
    const stored = await threads.get(made.value.thread_id);
    assert.deepEqual(Object.keys(stored!), ['thread_id', 'owner', ...FIELDS.slice(1), 'ttl']);
    assert.deepEqual(stored!.ttl, { strategy: 'delete', ttl_minutes: 10 });
    assert.deepEqual(stored!.metadata, { m: 1 });
    const bare = await new Threads(deps, '').create({});
    assert.ok(bare.ok);
    assert.deepEqual(Object.keys((await threads.get(bare.value.thread_id))!), FIELDS);
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
