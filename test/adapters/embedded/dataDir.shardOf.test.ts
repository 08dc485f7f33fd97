// shardOf decides which file a record is snapshotted in: the same id must land in the same shard
// from one release to the next, whatever kind of string V8 made of it (issue 86: its loop reads
// the characters through String.prototype.charCodeAt itself, not a per-string look-up).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shardOf } from '../../../src/adapters/embedded/dataDir.ts';

test('shardOf gives the FNV-1a shards it gave before, for ASCII, non-ASCII and empty ids', () => {
  assert.equal(shardOf('', 16), 5);
  assert.equal(shardOf('a', 16), 12);
  assert.equal(shardOf('3f2c6b1e-9a47-4d2b-8c1e-5f0a9b7d6e21', 16), 5);
  assert.equal(shardOf('thread/ü-ε', 16), 8);
  assert.equal(shardOf('run-12345', 16), 8);
  // the whole 32-bit hash, by a shard count above it in all but its top bits
  assert.equal(shardOf('', 1 << 30), 18652613);
  assert.equal(shardOf('a', 1 << 30), 604776748);
  assert.equal(shardOf('3f2c6b1e-9a47-4d2b-8c1e-5f0a9b7d6e21', 1 << 30), 702953589);
  assert.equal(shardOf('thread/ü-ε', 1 << 30), 913375784);
  assert.equal(shardOf('run-12345', 1 << 30), 90470584);
});

test('shardOf is the same for an id made as a flat, joined, sliced or parsed string', () => {
  const id = '3f2c6b1e-9a47-4d2b-8c1e-5f0a9b7d6e21';
  const kinds = [id, `${id.slice(0, 12)}${id.slice(12)}`, `xx${id}yy`.slice(2, -2), Object.keys(JSON.parse(`{"${id}":1}`) as object)[0]!, [...id].join('')];
  for (const kind of kinds) {
    assert.equal(kind, id);
    assert.equal(shardOf(kind, 1 << 30), 702953589);
  }
});
