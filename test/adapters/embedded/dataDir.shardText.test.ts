// A snapshot's shard file is made a chunk at a time, with turns of the event loop between
// (issue 67 point 5: a shard of checkpoints is megabytes, and stringified whole it was one
// synchronous turn that every request arriving meanwhile waited for), and it is the very text
// JSON.stringify makes of the shard, so every reader reads it as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHARD_TEXT_CHUNK, shardBytes, type ShardFile } from '../../../src/adapters/embedded/dataDir.ts';

test("a large shard's text is made over several turns, each a chunk, and is JSON.stringify's", async () => {
  const records: ShardFile['records'] = {};
  const message = 'x'.repeat(1000);
  for (let i = 0; i < 2000; i += 1)
    records[`thread-${i}`] = [i, Object.freeze({ values: { messages: [{ role: 'user', content: `${message} ${i}`, 'quote"d': '\u2028é' }] } })];
  records['42'] = [1, { integer: 'like id, ordered first by JSON.stringify' }];
  const data: ShardFile = { records };
  let turns = 0;
  let counting = true;
  const tick = () => {
    turns += 1;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const bytes = await shardBytes(data);
  const text = bytes.toString('utf8');
  counting = false;
  assert.ok(bytes.equals(Buffer.from(JSON.stringify(data))), 'the UTF-8 of JSON.stringify(data)');
  const chunks = Math.floor(text.length / SHARD_TEXT_CHUNK);
  assert.ok(chunks >= 10, `${text.length} characters`);
  assert.ok(turns >= chunks - 1, `${turns} turns of the event loop while ${text.length} characters were made (${chunks} chunks)`);
});

test("an empty shard is JSON.stringify's too", async () => {
  assert.equal((await shardBytes({ records: {} })).toString(), JSON.stringify({ records: {} }));
});

test('a record whose id is "__proto__" is written as a key like any other', async () => {
  const data = JSON.parse('{"records":{"a":[1,{"x":1}],"__proto__":[2,{"y":2}],"b":[3,{"z":3}]}}') as ShardFile;
  assert.equal((await shardBytes(data)).toString(), JSON.stringify(data));
});
