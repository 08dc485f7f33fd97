// A created record's line is one JSON.stringify, its value found after the head
// `[["name","id",seq,`: the head's length is counted when its strings are written as they are
// (plainHeadLength), and made as text otherwise. Either way the value is read back from where
// the line put it, before a reopen (a created record is read from the journal) and after, and
// the line is the text JSON.stringify writes of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore, plainHeadLength } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionThreads } from '../../../src/adapters/embedded/collectionThreads.ts';
import { newThread } from '../../../src/domain/agent/records.ts';
import { tempDir } from '../../support/server.ts';

const IDS = ['3f6c1d2e-8a4b-4c5d-9e0f-123456789abc', 'plain id ~!', 'quote"d', 'back\\slash', 'tab\there', 'del\u007f', 'ünïcödé', 'emoji 🧵', ''];

test('the head counted is the head stringified, for the strings written as they are; the others are left to the text', () => {
  for (const id of IDS) {
    for (const seq of [1, 9, 10, 12345, 2 ** 40]) {
      const text = JSON.stringify(['threads', id, seq]);
      const counted = plainHeadLength('threads', id, seq);
      if (counted >= 0) {
        assert.equal(counted, text.length, id);
        assert.equal(counted, Buffer.byteLength(text), id);
      } else
        assert.ok(
          [...id].some((c) => c === '"' || c === '\\' || c < ' ' || c > '~'),
          `${id} is counted`,
        );
    }
  }
  assert.equal(plainHeadLength('quote"d', 'x', 1), -1);
});

test('created threads of every kind of id read back from the journal, and after a reopen', async () => {
  const dataDir = tempDir('agentplane-head-length-');
  const created = IDS.map((id, i) => newThread(id, { i, text: `ü ${id}` }, i % 2 ? 'tenant' : ''));
  try {
    const store = await openJournalStore({ dataDir });
    const threads = new CollectionThreads(store);
    for (const thread of created) assert.equal(await threads.insert(thread), true);
    for (const thread of created) assert.deepEqual(await threads.get(thread.thread_id), thread);
    // each line is the text JSON.stringify writes of it, whichever way its head was found
    const journal = (fs.readdirSync(dataDir, { recursive: true }) as string[]).filter((file) => file.endsWith('.log'));
    const lines = journal.flatMap((file) => fs.readFileSync(path.join(dataDir, file), 'utf8').split('\n').filter(Boolean));
    for (const thread of created) {
      const line = lines.find((text) => (JSON.parse(text) as [string, string][])[0]![1] === thread.thread_id);
      const seq = (JSON.parse(line!) as [string, string, number][])[0]![2];
      assert.equal(line, JSON.stringify([['threads', thread.thread_id, seq, thread]]));
    }
    await store.close();
    const again = await openJournalStore({ dataDir });
    const reopened = new CollectionThreads(again);
    for (const thread of created) assert.deepEqual(await reopened.get(thread.thread_id), thread);
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
