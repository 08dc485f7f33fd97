// The ids the server makes for requests without their own X-Request-Id: short (one process's
// prefix and a count, not a 36-character UUID a request) and never the same twice, in a process
// or between two.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestIds } from '../../../../src/runtime/transports/http/requestIds.ts';

test('made ids are short, distinct in one process and between processes', () => {
  const one = requestIds();
  const other = requestIds();
  const seen = new Set<string>();
  for (let i = 0; i < 100_000; i++) seen.add(one());
  for (let i = 0; i < 1_000; i++) seen.add(other());
  assert.equal(seen.size, 101_000);
  const last = one();
  assert.match(last, /^[0-9a-f]{10}-[0-9a-z]+$/);
  assert.ok(last.length <= 15, `${last}: 100,000 ids in, an id is 15 characters at most`);
  assert.notEqual(one().slice(0, 11), other().slice(0, 11), 'each process its own prefix');
});
