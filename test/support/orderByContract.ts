// The `orderBy` contract every store keeps (ports/store.ts): a field's code-unit order,
// insertion order among equals, `reverse` descending, `below` a value, after `where`, before
// offset and limit.
import assert from 'node:assert/strict';
import type { Store } from '../../src/domain/ports/store.ts';

export async function assertOrderBy(store: Store): Promise<void> {
  const items = store.collection<{ id: string; tenant: string; k: string }>('sorted', { indexes: ['tenant'] });
  for (const [id, k] of [
    ['a', 'm'],
    ['b', 'B'],
    ['c', 'z'],
    ['d', 'm'],
    ['e', 'a'],
  ])
    await items.insert(id, { id, tenant: 't', k });
  await items.insert('x', { id: 'x', tenant: 'other', k: '0' });
  const ids = async (options: object) => (await items.list({ where: { tenant: 't' }, orderBy: 'k', ...options })).map((i) => i.id).join('');
  assert.equal(await ids({}), 'beadc', "'B' before 'a' (code units); a before d (both 'm', a inserted first)");
  assert.equal(await ids({ reverse: true }), 'cdaeb');
  assert.equal(await ids({ reverse: true, offset: 1, limit: 2 }), 'da');
  assert.equal(await ids({ below: 'm' }), 'be', 'below: the field under the value, in code units');
  assert.equal(await ids({ below: 'm', reverse: true, limit: 1 }), 'e');
  assert.equal(await ids({ below: 'B' }), '');
  // the first alone: as the whole order's first, ties included
  assert.equal(await ids({ limit: 1 }), 'b');
  assert.equal(await ids({ reverse: true, limit: 1 }), 'c');
  assert.equal(await ids({ below: 'z', reverse: true, limit: 1 }), 'd', "a and d tie at 'm': reversed, the later first");
  assert.equal(await ids({ below: 'n', limit: 1, offset: 1 }), 'e');
  await assert.rejects(items.list({ below: 'm' }), /below needs orderBy/);
}
