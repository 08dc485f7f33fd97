// A run worker's store write reaches the main thread with each put's JSON text made in the
// worker (PutOp.json, remoteStore.ts): the main thread, the store's one writer and the loop
// every request waits on, writes that text instead of making it again, and keeps the copy it
// received (frozen as it came) instead of copying it a second time (issues 86, 87). The
// journal's line is the same text as before, so a journal written either way loads the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { RemoteStore } from '../../../src/adapters/run-workers/remoteStore.ts';
import type { WriteOp } from '../../../src/domain/ports/store.ts';
import { CHECKPOINT_KEY_SEPARATOR } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/tempDirs.ts';

/** A checkpoint's key as the checkpointer makes it (thread, namespace, checkpoint): the thread's group is its beginning. */
const k = (n: number) => ['t1', '', `cp-${n}`].join(CHECKPOINT_KEY_SEPARATOR);

const checkpoint = (n: number) => ({
  thread_id: 't1',
  thread_ns: 't1:',
  checkpoint_id: `cp-${n}`,
  // a checkpoint's parts are mostly JSON text already: escaped once more in the line
  checkpoint: { type: 'json', text: JSON.stringify({ v: 4, id: `cp-${n}`, channel_values: { messages: ['a "quoted" message'] } }) },
  metadata: { step: n, source: 'loop', parents: {} },
  channels: {},
});

function journalText(dataDir: string): string {
  const dir = path.join(dataDir, 'journal');
  return fs
    .readdirSync(dir)
    .sort()
    .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'))
    .join('');
}

test("a put's given text is the line's, and its value is kept as it came, not copied", async () => {
  const dataDir = tempDir('agentplane-given-text-');
  try {
    const store = await openJournalStore({ dataDir });
    const checkpoints = store.collection<object>('checkpoints', { indexes: ['thread_id', 'thread_ns'] });
    await checkpoints.count();
    const value = checkpoint(1);
    // a text the store could not have made of the value: the store wrote the one it was given
    const given = JSON.stringify({ ...value, marker: 'made by the writer' });
    await store.write([{ collection: 'checkpoints', id: k(1), value, json: given }]);
    assert.ok(journalText(dataDir).includes('"marker":"made by the writer"'), 'the line holds the given text');
    // the value received is the store's own: frozen where it is, the same object read back
    const read = await checkpoints.get(k(1));
    assert.equal(read, value);
    assert.ok(Object.isFrozen(value) && Object.isFrozen(value.checkpoint) && Object.isFrozen(value.metadata));
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a journal written with given texts and one written without are the same bytes, and each loads', async () => {
  const dirs = { given: tempDir('agentplane-given-a-'), made: tempDir('agentplane-given-b-') };
  try {
    for (const [kind, dataDir] of Object.entries(dirs)) {
      const store = await openJournalStore({ dataDir });
      store.collection<object>('checkpoints', { indexes: ['thread_id', 'thread_ns'] });
      store.collection<object>('checkpoint_writes', { indexes: ['thread_id', 'cp_key'] });
      for (let n = 0; n < 4; n += 1) {
        const ops: WriteOp[] = [
          { collection: 'checkpoints', id: k(n), value: checkpoint(n) },
          {
            collection: 'checkpoint_writes',
            id: `${k(n)}${CHECKPOINT_KEY_SEPARATOR}task${CHECKPOINT_KEY_SEPARATOR}0`,
            value: { thread_id: 't1', cp_key: k(n), channel: 'messages', value: { type: 'json', text: '["x"]' } },
          },
        ];
        if (n === 2) ops.push({ collection: 'checkpoint_writes', id: `${k(1)}${CHECKPOINT_KEY_SEPARATOR}task${CHECKPOINT_KEY_SEPARATOR}0`, delete: true });
        await store.write(kind === 'given' ? ops.map((op) => ('value' in op ? { ...op, json: JSON.stringify(op.value) } : op)) : ops);
      }
      await store.close();
    }
    assert.equal(journalText(dirs.given), journalText(dirs.made));
    for (const dataDir of Object.values(dirs)) {
      const store = await openJournalStore({ dataDir });
      const checkpoints = store.collection<{ checkpoint_id: string }>('checkpoints', { indexes: ['thread_id', 'thread_ns'] });
      assert.deepEqual(
        (await checkpoints.list({ where: { thread_id: 't1' } })).map((c) => c.checkpoint_id),
        ['cp-0', 'cp-1', 'cp-2', 'cp-3'],
      );
      assert.deepEqual(await checkpoints.get(k(3)), checkpoint(3));
      const writes = store.collection<object>('checkpoint_writes', { indexes: ['thread_id', 'cp_key'] });
      assert.equal(await writes.count({ where: { thread_id: 't1' } }), 3);
      await store.close();
    }
  } finally {
    for (const dataDir of Object.values(dirs)) fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a worker's remote store sends each put with its value's text, and a value with none as it was", async () => {
  const sent: unknown[][] = [];
  const remote = new RemoteStore(async (_target, _method, args) => {
    sent.push(args);
  });
  const value = checkpoint(1);
  const cyclic: Record<string, unknown> = { id: 'c' };
  cyclic.self = cyclic;
  await remote.write([
    { collection: 'checkpoints', id: 'k1', value },
    { collection: 'checkpoints', id: 'k0', delete: true },
    { collection: 'threads', id: 't1', set: { status: 'idle' } },
    { collection: 'checkpoints', id: 'k2', value: cyclic },
  ]);
  const [ops] = sent[0] as [WriteOp[]];
  assert.deepEqual(ops[0], { collection: 'checkpoints', id: 'k1', value, json: JSON.stringify(value) });
  assert.deepEqual(ops[1], { collection: 'checkpoints', id: 'k0', delete: true });
  assert.deepEqual(ops[2], { collection: 'threads', id: 't1', set: { status: 'idle' } });
  // the store refuses it, naming the record, as before: the worker does not throw of its own
  assert.equal((ops[3] as { json?: string }).json, undefined);
});
