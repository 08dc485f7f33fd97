// What every PlainCheckpointsRepository answers, whichever backend keeps the plain-function
// graphs' checkpoints: the embedded store's collections
// (test/adapters/embedded/collectionPlainCheckpoints.test.ts) and PostgreSQL's tables
// (test/adapters/postgres/pgPlainCheckpoints.test.ts) run this one body.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { PlainCheckpointRecord, PlainCheckpointsRepository } from '../../src/domain/ports/plainCheckpointsRepository.ts';

function checkpoint(threadId: string, id: string, parent: string | null = null): PlainCheckpointRecord {
  return {
    thread_id: threadId,
    checkpoint_id: id,
    parent_checkpoint_id: parent,
    keep: 0,
    added: [{ type: 'human', content: id, id }],
    depth: 0,
    values: {},
    metadata: { step: 0 },
    created_at: '2026-01-01T00:00:00.000Z',
  } as PlainCheckpointRecord;
}

const ids = (records: PlainCheckpointRecord[]) => records.map((r) => `${r.thread_id}/${r.checkpoint_id}`).sort();

export function plainCheckpointsRepositoryContract(open: () => Promise<PlainCheckpointsRepository>): void {
  it("stores a thread's checkpoints and its head in one write, and reads each back by thread", async () => {
    const plain = await open();
    await plain.write([plain.putOp(checkpoint('t1', 'c1')), plain.putOp(checkpoint('t1', 'c2', 'c1')), plain.headOp('t1', 'c2')]);
    await plain.write([plain.putOp(checkpoint('t2', 'c1')), plain.headOp('t2', 'c1')]);
    assert.equal((await plain.get('t1', 'c2'))?.parent_checkpoint_id, 'c1');
    assert.equal((await plain.get('t2', 'c1'))?.thread_id, 't2');
    assert.equal(await plain.get('t1', 'missing'), undefined);
    assert.equal(await plain.headId('t1'), 'c2');
    assert.equal(await plain.headId('none'), undefined);
    assert.deepEqual(ids(await plain.ofThread('t1')), ['t1/c1', 't1/c2']);
    assert.deepEqual(ids(await plain.all()), ['t1/c1', 't1/c2', 't2/c1']);
    assert.equal(await plain.count('t1'), 2);
    assert.equal(await plain.count('none'), 0);
  });

  it('deletes checkpoints and a head, leaving the rest', async () => {
    const plain = await open();
    await plain.write([plain.putOp(checkpoint('t1', 'c1')), plain.putOp(checkpoint('t1', 'c2', 'c1')), plain.headOp('t1', 'c2')]);
    await plain.write([plain.deleteOp('t1', 'c1')]);
    assert.deepEqual(ids(await plain.ofThread('t1')), ['t1/c2']);
    await plain.write([plain.deleteOp('t1', 'c2'), plain.deleteHeadOp('t1')]);
    assert.deepEqual(await plain.ofThread('t1'), []);
    assert.equal(await plain.headId('t1'), undefined);
  });

  it("merges metadata into one checkpoint's, and into none that is missing", async () => {
    const plain = await open();
    await plain.write([plain.putOp(checkpoint('t1', 'c1'))]);
    assert.equal(await plain.patchMetadata('t1', 'c1', { note: 'kept' }), true);
    assert.deepEqual((await plain.get('t1', 'c1'))?.metadata, { step: 0, note: 'kept' });
    assert.equal(await plain.patchMetadata('t1', 'missing', { note: 'x' }), false);
    assert.equal(await plain.get('t1', 'missing'), undefined);
  });
}
