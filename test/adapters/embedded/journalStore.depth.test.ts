// The embedded store refuses values nested deeper than STORE_MAX_DEPTH by walking the values
// (journalStore.ts nestsDeeper), not by scanning the journal line's text: the same answer as
// the scan of the value's JSON (requestBody.ts depthExceededAt), for any value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { nestsDeeper, openJournalStore, STORE_MAX_DEPTH } from '../../../src/adapters/embedded/journalStore.ts';
import { depthExceededAt } from '../../../src/runtime/transports/http/requestBody.ts';
import { tempDir } from '../../support/server.ts';

function nested(depth: number, leaf: unknown, asArray: (level: number) => boolean): unknown {
  let value = leaf;
  for (let level = depth; level > 0; level -= 1) value = asArray(level) ? [1, value, '[{'] : { a: 'x"]}', b: value, c: undefined };
  return value;
}

test('the depth of a value as the walk finds it is the depth of its JSON as the scan finds it', () => {
  const values: unknown[] = [
    1,
    'a string with [[[{{{ and \\" "]]]',
    null,
    {},
    [],
    { when: new Date(0), skipped: undefined, fn: () => 1 },
    { json: { toJSON: () => [[[1]]] } },
    {
      selfish: {
        toJSON() {
          return this;
        },
        inner: [[1]],
      },
    },
    [undefined, [undefined, [{}]]],
    { text: JSON.stringify(nested(50, 1, () => false)) },
  ];
  for (const depth of [1, 2, 9, 10, 11, 60]) {
    values.push(
      nested(depth, 'leaf', () => false),
      nested(depth, [], () => true),
      nested(depth, {}, (level) => level % 3 === 0),
    );
  }
  for (const value of values) {
    for (const limit of [1, 3, 10, 11, 12, 61]) {
      assert.equal(
        nestsDeeper(value, limit),
        depthExceededAt(JSON.stringify(value) ?? '', limit) >= 0,
        `${JSON.stringify(value)?.slice(0, 80)} at limit ${limit}`,
      );
    }
  }
});

test('a value far deeper than the limit is answered without walking all of it', () => {
  const deep = nested(50_000, 1, (level) => level % 2 === 0);
  assert.equal(nestsDeeper(deep, 1000), true);
});

// A line shorter than two bytes a level is not walked (it cannot hold a value nested too deep):
// the shortest values at the limit and one level past it, in a paged collection and another
test('the shortest value one level past the limit is refused, and one at the limit stored', async () => {
  const dataDir = tempDir('agentplane-depth-');
  try {
    const store = await openJournalStore({ dataDir });
    for (const name of ['threads', 'assistants']) {
      const records = store.collection<{ v: unknown }>(name);
      // the record is one level: its field may nest STORE_MAX_DEPTH - 1 more, arrays only (two bytes a level)
      let atLimit: unknown = [];
      for (let level = 2; level < STORE_MAX_DEPTH; level += 1) atLimit = [atLimit];
      await records.put('fits', { v: atLimit });
      assert.deepEqual((await records.get('fits'))?.v, atLimit);
      await assert.rejects(records.put('deep', { v: [atLimit] }), /deeper than 1000 levels/);
      assert.equal(await records.get('deep'), undefined);
      await records.put('short', { v: nested(3, 1, () => true) });
    }
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
