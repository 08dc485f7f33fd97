// A checkpoint's put drops the one before it from the embedded store's value cache, with its
// pending writes and the values only it read (issue 87): a thread's next run reads only its
// newest. What was dropped is still on disk, and a read of it (history, state at a checkpoint)
// answers it as it was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore, type JournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import { CHECKPOINT_KEY_SEPARATOR } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import type { ChannelValueRecord, CheckpointRecord, WriteRecord } from '../../../src/domain/ports/checkpointsRepository.ts';
import { tempDir } from '../../support/tempDirs.ts';

const key = (...parts: string[]) => parts.join(CHECKPOINT_KEY_SEPARATOR);
const THREAD_NS = key('t1', '');

function checkpoint(id: string, channels: Record<string, string>, parent?: string): CheckpointRecord {
  return {
    thread_id: 't1',
    thread_ns: THREAD_NS,
    checkpoint_ns: '',
    checkpoint_id: id,
    ...(parent ? { parent_checkpoint_id: parent } : {}),
    checkpoint: { type: 'json', text: JSON.stringify({ id, note: `checkpoint ${id} `.repeat(40) }) },
    metadata: { type: 'json', text: JSON.stringify({ step: Number(id.slice(-1)) }) },
    channels: Object.fromEntries(Object.entries(channels).map(([channel, at]) => [channel, { version: at, at, chars: 400 }])),
  };
}

function value(channel: string, at: string): ChannelValueRecord {
  return { thread_id: 't1', thread_ns: THREAD_NS, channel, at, value: { type: 'json', text: JSON.stringify(`${channel} at ${at} `.repeat(30)) } };
}

const write = (cpId: string): WriteRecord => ({
  thread_id: 't1',
  cp_key: key('t1', '', cpId),
  task_id: 'task',
  channel: 'messages',
  idx: 0,
  value: { type: 'json', text: JSON.stringify('a write '.repeat(50)) },
});

// the parent: two channels of its own; the child: `messages` unchanged (still the parent's value), `__start__` no longer
const parent = checkpoint('cp-1', { messages: 'cp-1', __start__: 'cp-1' });
const child = checkpoint('cp-2', { messages: 'cp-1', branch: 'cp-2' }, 'cp-1');

async function withStore(work: (store: JournalStore, checkpoints: CollectionCheckpoints) => Promise<void>): Promise<void> {
  const store = await openJournalStore({ dataDir: tempDir('superseded-') });
  try {
    await work(store, new CollectionCheckpoints(store));
  } finally {
    await store.close();
  }
}

test("a checkpoint's put drops its parent, the parent's writes and the values only the parent read from the cache; each read back is as written", async () => {
  // what the cache holds with only the child's records written: the child, its value, and the parent's value it still reads
  let childAlone = 0;
  await withStore(async (store, checkpoints) => {
    await checkpoints.write([checkpoints.putValueOp(value('messages', 'cp-1'))]);
    await checkpoints.put(child, [value('branch', 'cp-2')]);
    childAlone = store.cachedBytes;
  });
  await withStore(async (store, checkpoints) => {
    await checkpoints.put(parent, [value('messages', 'cp-1'), value('__start__', 'cp-1')]);
    await checkpoints.write([checkpoints.putWriteOp(write('cp-1'))]);
    const withParent = store.cachedBytes;
    await checkpoints.put(child, [value('branch', 'cp-2')]);
    assert.equal(store.cachedBytes, childAlone, 'the cache holds the child and what it reads, not the parent, its write or its own value');
    assert.ok(withParent > childAlone);

    // read back from disk, byte for byte what was written
    assert.equal(JSON.stringify(await checkpoints.get(key('t1', '', 'cp-1'))), JSON.stringify(parent));
    assert.equal(JSON.stringify(await checkpoints.writesOf(key('t1', '', 'cp-1'))), JSON.stringify([write('cp-1')]));
    const values = await checkpoints.storedValuesOf([parent]);
    assert.equal(JSON.stringify(values.get(key(THREAD_NS, '__start__', 'cp-1'))), JSON.stringify(value('__start__', 'cp-1')));
    assert.equal(JSON.stringify(values.get(key(THREAD_NS, 'messages', 'cp-1'))), JSON.stringify(value('messages', 'cp-1')));
    assert.ok(store.cachedBytes > childAlone, 'what was read from disk is cached again');
    // the thread's newest is the child, with the value it names
    const newest = await checkpoints.newest(THREAD_NS);
    assert.equal(newest?.record.checkpoint_id, 'cp-2');
    assert.deepEqual(Object.keys(newest?.values ?? {}).sort(), ['branch', 'messages']);
  });
});

test('a put whose parent is not older (not a newer checkpoint) drops nothing', async () => {
  await withStore(async (store, checkpoints) => {
    await checkpoints.put(checkpoint('cp-5', { messages: 'cp-5' }), [value('messages', 'cp-5')]);
    const held = store.cachedBytes;
    await checkpoints.put(checkpoint('cp-3', { messages: 'cp-3' }, 'cp-5'), [value('messages', 'cp-3')]);
    assert.ok(store.cachedBytes > held, 'both are held');
    await withStore(async (alone, again) => {
      await again.put(checkpoint('cp-3', { messages: 'cp-3' }, 'cp-5'), [value('messages', 'cp-3')]);
      assert.equal(store.cachedBytes, held + alone.cachedBytes);
    });
  });
});

/** A checkpoint whose `messages` is stored as a chain: the `at`s before its own in `base` (none: whole). */
function chained(id: string, at: string, base: string[], parent?: string): CheckpointRecord {
  const record = checkpoint(id, { messages: at }, parent);
  if (base.length) record.channels!.messages = { ...record.channels!.messages!, base };
  return record;
}

/** What the cache holds with only these records written: the child's checkpoint and the values named. */
async function cachedAlone(child: CheckpointRecord, ats: string[]): Promise<number> {
  let bytes = 0;
  await withStore(async (store, checkpoints) => {
    await checkpoints.write(ats.map((at) => checkpoints.putValueOp(value('messages', at))));
    await checkpoints.put(child, []);
    bytes = store.cachedBytes;
  });
  return bytes;
}

test("a put keeps cached the values of its parent's chain it still reads, and drops the others", async () => {
  const parentChain = chained('cp-3', 'cp-3', ['cp-1', 'cp-2']);
  const cases: { what: string; child: CheckpointRecord; added: string[]; kept: string[] }[] = [
    { what: 'the chain goes on', child: chained('cp-4', 'cp-4', ['cp-1', 'cp-2', 'cp-3'], 'cp-3'), added: ['cp-4'], kept: ['cp-1', 'cp-2', 'cp-3', 'cp-4'] },
    { what: 'the same value', child: chained('cp-4', 'cp-3', ['cp-1', 'cp-2'], 'cp-3'), added: [], kept: ['cp-1', 'cp-2', 'cp-3'] },
    { what: 'stored whole again', child: chained('cp-4', 'cp-4', [], 'cp-3'), added: ['cp-4'], kept: ['cp-4'] },
    { what: 'a chain sharing its first value only', child: chained('cp-4', 'cp-4', ['cp-1'], 'cp-3'), added: ['cp-4'], kept: ['cp-1', 'cp-4'] },
  ];
  for (const { what, child, added, kept } of cases) {
    await withStore(async (store, checkpoints) => {
      await checkpoints.put(
        parentChain,
        ['cp-1', 'cp-2', 'cp-3'].map((at) => value('messages', at)),
      );
      await checkpoints.put(
        child,
        added.map((at) => value('messages', at)),
      );
      assert.equal(store.cachedBytes, await cachedAlone(child, kept), what);
    });
  }
});
