// The ids of packed records by number (issue 91): a UUID kept as its 16 bytes reads back as it
// was written, any other id is kept as it came, and numbers let go are taken again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { PackedIds } from '../../../src/adapters/embedded/packedIds.ts';

test('each id reads back from its number as it was added: a UUID from its bytes, any other form as it came', () => {
  const ids = new PackedIds();
  const uuid = randomUUID();
  const others = [
    uuid.toUpperCase(),
    `${uuid.slice(0, 35)}g`,
    uuid.replaceAll('-', ''),
    `{${uuid}}`,
    'r1',
    '',
    'ü'.repeat(36),
    '00000000-0000-0000-0000-000000000000',
  ];
  const handles = [uuid, ...others].map((id) => ids.add(id));
  assert.equal(new Set(handles).size, handles.length);
  [uuid, ...others].forEach((id, i) => {
    assert.equal(ids.handleOf(id), handles[i]);
    assert.equal(ids.idOf(handles[i]!), id);
  });
  assert.equal(ids.size, 1 + others.length);
  assert.equal(ids.handleOf(randomUUID()), undefined);
  assert.equal(ids.handleOf(uuid.slice(0, 35) + (uuid[35] === 'a' ? 'b' : 'a')), undefined, 'a UUID one digit apart');
});

test('numbers let go are taken again, the ids still held are found and those let go are not, through many comings and goings', () => {
  const ids = new PackedIds();
  const held = new Map<string, number>();
  const gone: string[] = [];
  for (let round = 0; round < 20; round += 1) {
    for (let i = 0; i < 500; i += 1) {
      const id = i % 50 === 0 ? `other-${round}-${i}` : randomUUID();
      held.set(id, ids.add(id));
    }
    // every other id goes, some of them right after they came
    let k = 0;
    for (const [id, handle] of held) {
      if (k++ % 2 === 0) continue;
      ids.remove(handle);
      held.delete(id);
      gone.push(id);
    }
  }
  // an id let go is not found, even one added as the table grew
  for (const id of gone) assert.equal(ids.handleOf(id), undefined, `${id} was let go`);
  assert.equal(ids.size, held.size);
  for (const [id, handle] of held) {
    assert.equal(ids.handleOf(id), handle);
    assert.equal(ids.idOf(handle), id);
  }
  assert.deepEqual(new Set(ids.handles()), new Set(held.values()));
  // the numbers stay below what was ever held at once
  assert.ok(Math.max(...held.values()) < 2 * 500 + held.size, `highest number ${Math.max(...held.values())}`);
});

test('an id let go is found no more, whichever add made the table grow', () => {
  const ids = new PackedIds();
  const added = Array.from({ length: 1_000 }, () => randomUUID());
  const handles = added.map((id) => ids.add(id));
  handles.forEach((handle) => ids.remove(handle));
  assert.equal(ids.size, 0);
  assert.deepEqual(
    added.filter((id) => ids.handleOf(id) !== undefined),
    [],
  );
});

test('the id asked for last answers as the table does after each add and remove (its handle remembered)', () => {
  const ids = new PackedIds();
  const x = '0b5c8d3e-1f2a-4b6c-8d9e-0f1a2b3c4d5e';
  const odd = 'thread-X';
  for (const id of [x, odd]) {
    assert.equal(ids.handleOf(id), undefined); // asked before it is held
    const handle = ids.add(id);
    assert.equal(ids.handleOf(id), handle);
    assert.equal(ids.handleOf([...id].join('')), handle); // the same text in another string
    ids.remove(handle);
    assert.equal(ids.handleOf(id), undefined);
    const other = id === x ? '1b5c8d3e-1f2a-4b6c-8d9e-0f1a2b3c4d5e' : 'thread-Y';
    assert.equal(ids.add(other), handle); // the handle taken again, by another id
    assert.equal(ids.handleOf(id), undefined);
    assert.equal(ids.handleOf(other), handle);
    ids.remove(handle);
  }
});

test('an id looked up and then added (a create) is held as its bits, or as it came when it is no UUID', () => {
  const ids = new PackedIds();
  const uuid = 'a1b2c3d4-e5f6-4789-8abc-def012345678';
  const upper = 'A1B2C3D4-E5F6-4789-8ABC-DEF012345678'; // parsed part of the way before it fails
  const other = '0f0e0d0c-0b0a-4908-8706-050403020100';
  for (const id of [uuid, upper, other]) {
    assert.equal(ids.handleOf(id), undefined);
    ids.add(id);
  }
  // an add of an id other than the one looked up last parses its own
  const fourth = '11111111-2222-4333-8444-555555555555';
  assert.equal(ids.handleOf('b1b2c3d4-e5f6-4789-8abc-def012345678'), undefined);
  ids.add(fourth);
  ids.handleOf('not-held'); // the last id asked for is another
  for (const id of [uuid, upper, other, fourth]) assert.equal(ids.idOf(ids.handleOf(id)!), id);
  assert.equal(ids.handleOf('b1b2c3d4-e5f6-4789-8abc-def012345678'), undefined);
});
