// A run worker's checkpoint writes reach the embedded store as their texts and kept fields alone
// (TextPut, textPut.ts): the main thread writes the text into the journal line, indexes the
// record by those fields and leaves its value on disk (issues 86, 87). The line is the one the
// put with its value would have made, so a journal loads the same whichever way it was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore, type StoreIo } from '../../../src/adapters/embedded/journalStore.ts';
import { asTextPut, type TextPut } from '../../../src/adapters/embedded/textPut.ts';
import { RemoteStore } from '../../../src/adapters/run-workers/remoteStore.ts';
import { StoreWriteError } from '../../../src/shared/storeErrors.ts';
import type { PutOp, WriteOp } from '../../../src/domain/ports/store.ts';
import { CHECKPOINT_KEY_SEPARATOR } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/tempDirs.ts';

const k = (n: number) => ['t1', '', `cp-${n}`].join(CHECKPOINT_KEY_SEPARATOR);
const writeKey = (n: number) => `${k(n)}${CHECKPOINT_KEY_SEPARATOR}task${CHECKPOINT_KEY_SEPARATOR}0`;

const checkpoint = (n: number) => ({
  thread_id: 't1',
  thread_ns: 't1:',
  checkpoint_id: `cp-${n}`,
  checkpoint: { type: 'json', text: JSON.stringify({ v: 4, id: `cp-${n}`, channel_values: { messages: ['a "quoted" message', 'é😀'] } }) },
  metadata: { step: n, source: 'loop', parents: {} },
  channels: {},
});

/** A run's checkpoint writes as a worker makes them: the checkpoint, a pending write, and (from the third) a delete. */
function checkpointWrites(n: number): PutOp[] | WriteOp[] {
  const ops: WriteOp[] = [
    { collection: 'checkpoints', id: k(n), value: checkpoint(n) },
    { collection: 'checkpoint_writes', id: writeKey(n), value: { thread_id: 't1', cp_key: k(n), channel: 'messages', value: { type: 'json', text: '["x"]' } } },
  ];
  if (n === 2) ops.push({ collection: 'checkpoint_writes', id: writeKey(1), delete: true });
  return ops.map((op) => ('value' in op ? { ...op, json: JSON.stringify(op.value) } : op));
}

const asTexts = (ops: WriteOp[], collections: Record<string, readonly string[]>) => ops.map((op) => asTextPut(op, collections));

function journalText(dataDir: string): string {
  const dir = path.join(dataDir, 'journal');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.log'))
    .sort()
    .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'))
    .join('');
}

async function open(dataDir: string | null, io?: StoreIo) {
  const store = await openJournalStore({ dataDir, ...(io ? { io } : {}) });
  const checkpoints = store.collection<ReturnType<typeof checkpoint>>('checkpoints', { indexes: ['thread_id', 'thread_ns'] });
  const writes = store.collection<object>('checkpoint_writes', { indexes: ['thread_id', 'cp_key'] });
  await checkpoints.count();
  await writes.count();
  return { store, checkpoints, writes };
}

test('a journal written with TextPuts is the same bytes as one written with the values, and each loads the same records', async () => {
  const dirs = { texts: tempDir('agentplane-textputs-a-'), values: tempDir('agentplane-textputs-b-') };
  try {
    for (const [kind, dataDir] of Object.entries(dirs)) {
      const { store } = await open(dataDir);
      const collections = store.textPuts()!;
      for (let n = 0; n < 4; n += 1) {
        const ops = checkpointWrites(n);
        if (kind === 'texts') await store.writeTexts(asTexts(ops, collections));
        else await store.write(ops);
      }
      await store.close();
    }
    assert.equal(journalText(dirs.texts), journalText(dirs.values));
    for (const dataDir of Object.values(dirs)) {
      const { store, checkpoints, writes } = await open(dataDir);
      assert.deepEqual(
        (await checkpoints.list({ where: { thread_id: 't1' } })).map((c) => c.checkpoint_id),
        ['cp-0', 'cp-1', 'cp-2', 'cp-3'],
      );
      assert.deepEqual(await checkpoints.get(k(3)), checkpoint(3));
      assert.equal(await writes.count({ where: { thread_id: 't1' } }), 3);
      await store.close();
    }
  } finally {
    for (const dataDir of Object.values(dirs)) fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a record written as its text is read from the journal at once, by its id and by its kept fields, before and after a restart', async () => {
  const dataDir = tempDir('agentplane-textputs-read-');
  try {
    const { store, checkpoints, writes } = await open(dataDir);
    for (let n = 0; n < 3; n += 1) await store.writeTexts(asTexts(checkpointWrites(n), store.textPuts()!));
    assert.deepEqual(await checkpoints.get(k(1)), checkpoint(1));
    assert.deepEqual(
      (await checkpoints.getMany([k(0), k(2)])).map((c) => c?.checkpoint_id),
      ['cp-0', 'cp-2'],
    );
    assert.deepEqual(
      (await checkpoints.list({ where: { thread_id: 't1' } })).map((c) => c.checkpoint_id),
      ['cp-0', 'cp-1', 'cp-2'],
    );
    assert.deepEqual(
      (await writes.list({ where: { cp_key: k(2) } })).map((w) => (w as { channel: string }).channel),
      ['messages'],
    );
    assert.equal(await writes.get(writeKey(1)), undefined, 'the delete in the same write as a TextPut was made');
    // written over: the newer text is read
    const over = { ...checkpoint(2), metadata: { step: 2, source: 'update', parents: {} } };
    await store.writeTexts([asTextPut({ collection: 'checkpoints', id: k(2), value: over, json: JSON.stringify(over) }, store.textPuts()!)]);
    assert.deepEqual(await checkpoints.get(k(2)), over);
    await store.close();
    const again = await open(dataDir);
    assert.deepEqual(await again.checkpoints.get(k(2)), over);
    assert.equal(await again.checkpoints.count({ where: { thread_id: 't1' } }), 3);
    await again.store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a TextPut whose line cannot be written is refused, and nothing of its write is kept', async () => {
  const dataDir = tempDir('agentplane-textputs-fail-');
  let failing = false;
  const io: StoreIo = {
    writeSync: (fd, buffer, offset, length) => {
      if (failing) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      return fs.writeSync(fd, buffer, offset, length);
    },
    fsyncSync: (fd) => fs.fsyncSync(fd),
    ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
    writeFile: (file, data) => fs.promises.writeFile(file, data as string),
  };
  try {
    const { store, checkpoints } = await open(dataDir, io);
    await store.writeTexts(asTexts(checkpointWrites(0), store.textPuts()!));
    failing = true;
    await assert.rejects(store.writeTexts(asTexts(checkpointWrites(1), store.textPuts()!)), StoreWriteError);
    failing = false;
    assert.equal(await checkpoints.get(k(1)), undefined);
    assert.deepEqual(await checkpoints.get(k(0)), checkpoint(0));
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a store that writes no journal takes no TextPut, and one it cannot write as text is made as the put it stands for', async () => {
  const memory = await open(null);
  assert.equal(memory.store.textPuts(), null);
  const put = checkpointWrites(0)[0] as PutOp;
  const text = asTextPut(put, { checkpoints: ['thread_id', 'thread_ns', 'checkpoint_id'] }) as TextPut;
  await memory.store.writeTexts([text]);
  assert.deepEqual(await memory.checkpoints.get(k(0)), checkpoint(0));
  await memory.store.close();
  const dataDir = tempDir('agentplane-textputs-kept-');
  try {
    const { store, checkpoints } = await open(dataDir);
    // kept fields other than the store's (a worker told of another layout): written with its value
    await store.writeTexts([{ ...text, kept: ['t1'] }]);
    assert.deepEqual(await checkpoints.get(k(0)), checkpoint(0));
    assert.deepEqual(
      (await checkpoints.list({ where: { thread_id: 't1' } })).map((c) => c.checkpoint_id),
      ['cp-0'],
    );
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a worker's ordered checkpoint writes go as TextPuts of the collections named, anything else as before", async () => {
  const sent: unknown[][] = [];
  const collections = { checkpoints: ['thread_id', 'thread_ns', 'checkpoint_id'] };
  const remote = new RemoteStore(async (_target, _method, args) => void sent.push(args), undefined, false, collections);
  const value = checkpoint(1);
  let deep: unknown = 'bottom';
  for (let i = 0; i < 1100; i += 1) deep = [deep];
  const tooDeep = { ...checkpoint(2), channels: { deep } };
  const ops: WriteOp[] = [
    { collection: 'checkpoints', id: 'k1', value },
    { collection: 'checkpoints', id: 'k0', delete: true },
    { collection: 'checkpoint_values', id: 'v1', value: { thread_id: 't1' } },
    { collection: 'checkpoints', id: 'k2', value: tooDeep },
  ];
  await remote.ordered('t1').write(ops);
  const [sentOps] = sent[0] as [unknown[]];
  assert.deepEqual(sentOps[0], { collection: 'checkpoints', id: 'k1', json: JSON.stringify(value), kept: ['t1', 't1:', 'cp-1'] });
  assert.deepEqual(sentOps[1], { collection: 'checkpoints', id: 'k0', delete: true });
  assert.deepEqual(sentOps[2], { collection: 'checkpoint_values', id: 'v1', value: { thread_id: 't1' }, json: '{"thread_id":"t1"}' });
  // nested deeper than the store takes: sent with its value, for the store to refuse naming it
  assert.equal((sentOps[3] as { value?: unknown }).value, tooDeep);
  // a store call that is not a held thread's ordered write: every put with its value
  await remote.write([{ collection: 'checkpoints', id: 'k1', value }]);
  assert.equal((sent[1] as [{ value?: unknown }[]])[0][0].value, value);
});
