// A thread's API object (toApiThread, src/domain/agent/records.ts): what it holds, and that the
// views of many threads share one hidden class. Made as `{ ...record, values }`, each view had
// one of its own on Node 20, and the reply serializer's reads of POST /threads' answer went to
// the runtime on every key (~15% of the request's CPU).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { newThread, toApiThread, type ThreadRecord } from '../../../src/domain/agent/records.ts';

v8.setFlagsFromString('--allow-natives-syntax');
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
v8.setFlagsFromString('--no-allow-natives-syntax');

test('a thread view holds the API fields in the record order, never the owner or the protocol sequence', () => {
  const record: ThreadRecord = { ...newThread('t-1', { a: 1 }, 'tenant'), protocol_seq: 7, ttl: { strategy: 'delete', ttl_minutes: 2 } };
  const view = toApiThread(record, { x: 1 });
  assert.deepEqual(Object.keys(view), ['thread_id', 'created_at', 'updated_at', 'metadata', 'status', 'config', 'interrupts', 'values']);
  assert.deepEqual(view.values, { x: 1 });
  assert.equal(view.metadata, record.metadata);
  const withTtl = toApiThread(record, null, { ttl: true });
  const expires = new Date(Date.parse(record.updated_at) + 120_000).toISOString();
  assert.deepEqual(withTtl.ttl, { strategy: 'delete', ttl_minutes: 2, expires_at: expires });
  assert.equal(toApiThread(newThread('t-2', {}, ''), null, { ttl: true }).ttl, undefined, 'no ttl set: none shown');
});

test('the views of many threads share one hidden class', () => {
  const views = Array.from({ length: 50 }, (_, i) =>
    toApiThread({ ...newThread(`t-${i}`, {}, i % 2 ? 'tenant' : ''), ...(i % 3 ? {} : { protocol_seq: i }) }, null),
  );
  assert.ok(sameShape(views[48], views[49]), 'two views made one after the other');
  assert.ok(sameShape(views[0], views[49]), 'the first and the last');
});
