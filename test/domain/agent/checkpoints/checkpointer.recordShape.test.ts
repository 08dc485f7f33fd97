// A put's record, built key by key (issue 86: the literal's spreads of the optional keys cost V8
// runtime calls in the run worker): the keys a literal gave it, in the literal's order, with and
// without a parent checkpoint and a run id; and the checkpoint's copy with its inline values,
// the spread `{ ...checkpoint, channel_values }` it replaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCheckpoint } from '@langchain/langgraph';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import fc from 'fast-check';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { copyWith } from '../../../../src/domain/copyWith.ts';
import type { CheckpointRecord } from '../../../../src/domain/ports/checkpointsRepository.ts';

test('a put record has the literal keys in order: parent and run id only when there are', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const put: CheckpointRecord[] = [];
    const checkpoints = new CollectionCheckpoints(store);
    const original = checkpoints.put.bind(checkpoints);
    checkpoints.put = (record, stored) => (put.push(record), original(record, stored));
    const saver = new StoreCheckpointer(checkpoints);
    const ids = [
      '1ef00000-0000-6000-8000-000000000001',
      '1ef00000-0000-6000-8000-000000000002',
      '1ef00000-0000-6000-8000-000000000003',
      '1ef00000-0000-6000-8000-000000000004',
    ];
    const cases = [
      { parent: undefined, run: undefined },
      { parent: ids[0], run: undefined },
      { parent: undefined, run: 'run-1' },
      { parent: ids[1], run: 'run-2' },
    ];
    for (const [i, c] of cases.entries()) {
      const config = { configurable: { thread_id: 't1', checkpoint_ns: '', ...(c.parent ? { checkpoint_id: c.parent } : {}) } };
      await saver.put(
        config,
        { ...emptyCheckpoint(), id: ids[i]!, channel_values: { step: i } },
        { source: 'loop', step: i, parents: {}, ...(c.run ? { run_id: c.run } : {}) } as never,
        {},
      );
    }
    assert.equal(put.length, 4);
    for (const [i, c] of cases.entries()) {
      const record = put[i]!;
      assert.deepEqual(Object.keys(record), [
        'thread_id',
        'thread_ns',
        'checkpoint_ns',
        'checkpoint_id',
        ...(c.parent ? ['parent_checkpoint_id'] : []),
        ...(c.run ? ['run_id'] : []),
        'checkpoint',
        'metadata',
        'channels',
      ]);
      assert.equal(record.checkpoint_id, ids[i]);
      assert.equal(record.parent_checkpoint_id, c.parent);
      assert.equal(record.run_id, c.run);
      assert.equal(record.checkpoint_ns, '');
    }
  } finally {
    await store.close();
  }
});

test('a checkpoint copied with its inline channel values (copyWith): the spread { ...checkpoint, channel_values } on generated checkpoints', () => {
  const key = fc.oneof(fc.string(), fc.constantFrom('v', 'id', 'ts', 'channel_values', 'channel_versions', 'versions_seen', '__proto__', '3'));
  const checkpoint = fc.array(fc.tuple(key, fc.jsonValue()), { maxLength: 9 }).map((entries) => {
    const c: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(c, k, { value: v, enumerable: true, writable: true, configurable: true });
    return c;
  });
  fc.assert(
    fc.property(checkpoint, fc.dictionary(fc.string(), fc.jsonValue()), (c, inline) => {
      const copy = copyWith(c as object, { channel_values: inline });
      const spread = { ...c, channel_values: inline };
      assert.deepStrictEqual(copy, spread);
      assert.deepStrictEqual(Reflect.ownKeys(copy), Reflect.ownKeys(spread));
      assert.equal(JSON.stringify(copy), JSON.stringify(spread));
      assert.equal((copy as unknown as Record<string, unknown>).channel_values, inline);
    }),
    { numRuns: 500 },
  );
});
