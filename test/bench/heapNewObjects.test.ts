// heapNewObjects.ts (issue 87): the objects a heap holds that it did not hold at an earlier
// snapshot of the same process, named by who holds them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSnapshot } from 'node:v8';
import { idsOf, newObjects, newObjectsReport, type HeapSnapshot } from '../../scripts/bench/heapNewObjects.ts';

async function snapshot(): Promise<HeapSnapshot> {
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk.toString());
  return JSON.parse(chunks.join('')) as HeapSnapshot;
}

class Keeper {
  readonly kept = new Map<number, object>();
}

class Kept {
  constructor(readonly text: string) {}
}

test('objects made between two snapshots and still held are given to the holder they hang from', async () => {
  const keeper = new Keeper();
  keeper.kept.set(0, new Kept('before'));
  const first = idsOf(await snapshot());
  for (let i = 1; i <= 500; i += 1) keeper.kept.set(i, new Kept(`kept ${i} ${'x'.repeat(100)}`));
  // made and dropped in between: not in the second snapshot
  for (let i = 0; i < 500; i += 1) new Kept(`dropped ${i}`);
  const found = newObjects(first, await snapshot());

  const kept = found.byKind.find((row) => row.kind === 'object:Kept');
  assert.equal(kept?.count, 500, 'each Kept made since the first snapshot, and only those held');
  // (a few may hang from the stack's roots: the loop's last, say)
  const keptBytes = (row: (typeof found.byOwner)[number]) => row.kinds.find(([kind]) => kind === 'object:Kept')?.[1] ?? 0;
  const owner = [...found.byOwner].sort((a, b) => keptBytes(b) - keptBytes(a))[0];
  assert.ok(owner && keptBytes(owner) > 0, 'an owner holds the new Kept objects');
  assert.match(owner.owner, /object:Keeper > kept > object:Map/, 'named by the old holder and its field');
  assert.ok(owner.count >= 1000, 'the Kept objects and their texts under the one owner');
  assert.ok(found.bytes >= owner.bytes && owner.bytes >= 500 * 100, 'their bytes counted, the texts included');
  assert.ok(
    newObjectsReport(found).some((line) => line.includes('object:Keeper > kept')),
    'the report names the owner',
  );
  assert.ok(keeper.kept.size === 501);
});
