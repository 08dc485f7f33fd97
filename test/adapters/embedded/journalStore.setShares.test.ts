// A field set on a record (a SetOp: a thread's values at a run's end) keeps the objects the record
// held for the parts that hold the same data: a thread's values after a run are its messages
// before it and the run's new ones, and a new frozen copy of every message at each run's end,
// held by the store's value cache until the next run, was most of what the cache gained a run
// under 1,000 subscribers (issue 87). What is read back, and the journal's lines, are as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/server.ts';

const message = (i: number) => ({ type: i % 2 ? 'ai' : 'human', content: `message ${i} "é"`, id: `m${i}`, additional_kwargs: {} });
const values = (n: number) => ({ messages: Array.from({ length: n }, (_, i) => message(i)) });

interface Thread {
  thread_id: string;
  status: string;
  values: { messages: ReturnType<typeof message>[] };
}

for (const paged of [false, true]) {
  test(`a thread's values set again keep the messages it held; read back and loaded again the same (${paged ? 'paged' : 'in memory'})`, async () => {
    const dataDir = paged ? tempDir('set-shares-') : null;
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.put('t1', { thread_id: 't1', status: 'idle', values: values(2) });
    await store.write([{ collection: 'threads', id: 't1', set: { values: values(3), status: 'busy' } }]);
    const before = (await threads.get('t1'))!;
    await store.write([{ collection: 'threads', id: 't1', set: { values: values(5), status: 'idle' } }]);
    const after = (await threads.get('t1'))!;
    assert.deepEqual(after, { thread_id: 't1', status: 'idle', values: values(5) });
    for (let i = 0; i < 3; i += 1) assert.equal(after.values.messages[i], before.values.messages[i], `message ${i}: the object held before`);
    assert.ok(Object.isFrozen(after.values.messages[4]));
    // a set that changes a message: that one new, the others kept
    const edited = values(5);
    edited.messages[1] = { ...edited.messages[1]!, content: 'edited' };
    await store.write([{ collection: 'threads', id: 't1', set: { values: edited } }]);
    const last = (await threads.get('t1'))!;
    assert.equal(last.values.messages[1]!.content, 'edited');
    assert.equal(last.values.messages[0], after.values.messages[0]);
    assert.equal(last.values.messages[4], after.values.messages[4]);
    await store.close();
    if (dataDir) {
      const again = await openJournalStore({ dataDir });
      assert.deepEqual(await again.collection<Thread>('threads', { indexes: ['status'] }).get('t1'), { thread_id: 't1', status: 'idle', values: edited });
      await again.close();
    }
  });
}
