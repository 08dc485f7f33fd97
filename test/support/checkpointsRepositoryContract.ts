// What every CheckpointsRepository answers, whichever backend keeps LangGraph's checkpoints:
// the embedded store's collections and PostgreSQL's tables
// (test/adapters/embedded/collectionCheckpoints.test.ts runs this one body on both).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { CHECKPOINT_KEY_SEPARATOR as SEP, channelValueKey } from '../../src/domain/agent/checkpoints/checkpointer.ts';
import type { ChannelValueRecord, CheckpointRecord, CheckpointsRepository, WriteRecord } from '../../src/domain/ports/checkpointsRepository.ts';
import type { Serialised } from '../../src/domain/agent/checkpoints/checkpointText.ts';

const text = (t: string): Serialised => ({ type: 'json', text: t });

function checkpoint(threadId: string, ns: string, id: string, fields: Partial<CheckpointRecord> = {}): CheckpointRecord {
  return {
    thread_id: threadId,
    thread_ns: `${threadId}${SEP}${ns}`,
    checkpoint_ns: ns,
    checkpoint_id: id,
    checkpoint: text(id),
    metadata: text('{}'),
    ...fields,
  };
}

const cpKey = (r: CheckpointRecord) => [r.thread_id, r.checkpoint_ns, r.checkpoint_id].join(SEP);

function pending(of: CheckpointRecord, taskId: string, idx: number): WriteRecord {
  return { thread_id: of.thread_id, cp_key: cpKey(of), task_id: taskId, channel: 'messages', idx, value: text(`${taskId}/${idx}`) };
}

function stored(of: CheckpointRecord, channel: string, text: string): ChannelValueRecord {
  return { thread_id: of.thread_id, thread_ns: of.thread_ns, channel, at: of.checkpoint_id, value: { type: 'json', text } };
}

const ids = (records: CheckpointRecord[]) => records.map((r) => `${r.checkpoint_ns || '-'}/${r.checkpoint_id}`);
const slots = (writes: WriteRecord[]) => writes.map((w) => `${w.task_id}/${w.idx}`).sort();

export function checkpointsRepositoryContract(open: () => Promise<CheckpointsRepository>): void {
  it("stores checkpoints and their pending writes, and reads a thread's by namespace, newest first, below an id, a page", async () => {
    const saver = await open();
    const [c1, c2, c3, sub] = [checkpoint('t1', '', 'c1'), checkpoint('t1', '', 'c2'), checkpoint('t1', '', 'c3'), checkpoint('t1', 'sub', 'c2')];
    // stored out of id order: newest first is by id, not by when they were written
    await saver.write([saver.putOp(c3), saver.putOp(c1), saver.putOp(sub), saver.putWriteOp(pending(c3, 'task', 0)), saver.putWriteOp(pending(c3, 'task', 1))]);
    await saver.put(c2);
    await saver.put(checkpoint('t2', '', 'c9'));
    assert.equal((await saver.get(cpKey(c2)))?.checkpoint_id, 'c2');
    assert.equal(await saver.get(cpKey(checkpoint('t1', '', 'missing'))), undefined);
    assert.deepEqual(ids(await saver.list({ threadId: 't1', threadNs: c1.thread_ns, newestFirst: {} })), ['-/c3', '-/c2', '-/c1']);
    assert.deepEqual(ids(await saver.list({ threadId: 't1', threadNs: c1.thread_ns, newestFirst: { below: 'c3', limit: 1 } })), ['-/c2']);
    assert.deepEqual(ids(await saver.list({ threadId: 't1' })).sort(), ['-/c1', '-/c2', '-/c3', 'sub/c2']);
    assert.equal((await saver.all()).length, 5);
    assert.equal(await saver.count('t1'), 4);
    assert.deepEqual(slots(await saver.writesOf(cpKey(c3))), ['task/0', 'task/1']);
    assert.deepEqual(slots(await saver.writesOfThread('t1')), ['task/0', 'task/1']);
    assert.deepEqual(await saver.writesOf(cpKey(c1)), []);
  });

  it("finds a namespace's newest checkpoint by id, with its pending writes", async () => {
    const saver = await open();
    const [older, newer] = [checkpoint('t1', '', 'c1'), checkpoint('t1', '', 'c2')];
    await saver.write([saver.putOp(newer), saver.putOp(older), saver.putWriteOp(pending(newer, 'task', 0)), saver.putWriteOp(pending(older, 'task', 5))]);
    const head = await saver.newest(newer.thread_ns);
    assert.equal(head?.record.checkpoint_id, 'c2');
    assert.deepEqual(slots(head?.writes ?? []), ['task/0']);
    assert.equal(await saver.newest(checkpoint('none', '', 'x').thread_ns), undefined);
  });

  it('deletes checkpoints and pending writes, leaving the rest', async () => {
    const saver = await open();
    const [c1, c2] = [checkpoint('t1', '', 'c1'), checkpoint('t1', '', 'c2')];
    const [w1, w2] = [pending(c1, 'task', 0), pending(c2, 'task', 0)];
    await saver.write([saver.putOp(c1), saver.putOp(c2), saver.putWriteOp(w1), saver.putWriteOp(w2)]);
    await saver.write([saver.deleteOp(c1), saver.deleteWriteOp(w1)]);
    assert.deepEqual(ids(await saver.list({ threadId: 't1' })), ['-/c2']);
    assert.deepEqual(slots(await saver.writesOfThread('t1')), ['task/0']);
    assert.deepEqual(await saver.writesOf(cpKey(c1)), []);
  });

  it('stores a channel value once with the checkpoint that stored it, and reads it for every checkpoint naming it', async () => {
    const saver = await open();
    const c1 = checkpoint('t1', '', 'c1');
    const big = stored(c1, 'messages', '["big"]');
    c1.channels = { messages: { version: 1, at: 'c1', chars: 7 } };
    await saver.put(c1, [big]);
    // nine more checkpoints naming the same value, and one naming one that is not stored
    const later = Array.from({ length: 9 }, (_, i) => checkpoint('t1', '', `c${i + 2}`, { channels: { messages: { version: 1, at: 'c1', chars: 7 } } }));
    for (const r of later) await saver.put(r);
    const orphan = checkpoint('t1', '', 'd1', { channels: { messages: { version: 2, at: 'gone', chars: 1 } } });
    const values = await saver.valuesOf([c1, ...later, orphan]);
    assert.deepEqual([...values.keys()], [channelValueKey(c1.thread_ns, 'messages', 'c1')], 'one value, read once; a missing one left out');
    assert.deepEqual(values.get(channelValueKey(c1.thread_ns, 'messages', 'c1')), big.value);
    assert.deepEqual((await saver.newest(c1.thread_ns))?.values, { messages: big.value }, 'the newest with the values it names');
    assert.deepEqual((await saver.valuesOf([checkpoint('t1', '', 'old')])).size, 0, 'a checkpoint naming none (stored before values were)');
    await saver.write([saver.deleteValueOp(c1.thread_ns, 'messages', 'c1')]);
    assert.equal((await saver.valuesOf([c1])).size, 0);
    assert.deepEqual((await saver.newest(c1.thread_ns))?.values, {});
    // values with a write of their own
    await saver.write([saver.putValueOp(stored(c1, 'messages', '["again"]'))]);
    assert.equal((await saver.valuesOf(later)).get(channelValueKey(c1.thread_ns, 'messages', 'c1'))?.text, '["again"]');
  });

  it("reads a value stored as a tail of others (its chain) whole, and the chain's records as stored", async () => {
    const saver = await open();
    const [c1, c2, c3] = ['c1', 'c2', 'c3'].map((id) => checkpoint('t1', '', id));
    c1.channels = { messages: { version: 1, at: 'c1', chars: 7 } };
    c2.channels = { messages: { version: 2, at: 'c2', chars: 13, base: ['c1'], stored: 13 } };
    c3.channels = { messages: { version: 3, at: 'c3', chars: 19, base: ['c1', 'c2'], stored: 19 } };
    // ["one"] → ["one","two"] → ["one","two","six"]: each keeps all but the closing bracket of the one before
    const tail = (of: CheckpointRecord, keep: number, t: string): ChannelValueRecord => ({ ...stored(of, 'messages', t), keep });
    await saver.put(c1, [stored(c1, 'messages', '["one"]')]);
    await saver.put(c2, [tail(c2, 6, ',"two"]')]);
    await saver.put(c3, [tail(c3, 12, ',"six"]')]);
    const values = await saver.valuesOf([c3, c2]);
    assert.equal(values.get(channelValueKey(c3.thread_ns, 'messages', 'c3'))?.text, '["one","two","six"]');
    assert.equal(values.get(channelValueKey(c2.thread_ns, 'messages', 'c2'))?.text, '["one","two"]');
    assert.deepEqual((await saver.newest(c1.thread_ns))?.values, { messages: { type: 'json', text: '["one","two","six"]' } });
    const records = await saver.storedValuesOf([c3]);
    assert.deepEqual(
      [...records.values()].map((r) => [r.at, r.keep, r.value.text]),
      [
        ['c1', undefined, '["one"]'],
        ['c2', 6, ',"two"]'],
        ['c3', 12, ',"six"]'],
      ],
    );
    // a chain missing a record: the value is left out
    await saver.write([saver.deleteValueOp(c1.thread_ns, 'messages', 'c2')]);
    assert.equal((await saver.valuesOf([c3])).size, 0);
    assert.equal((await saver.valuesOf([c1])).size, 1);
  });
}
