import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuid4, uuid5, uuid7 } from '../../../src/domain/agent/ids.ts';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

test('uuid5 gives the RFC 4122 name-based id, the same on every call, per namespace', () => {
  // Python's uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
  assert.equal(uuid5('python.org', DNS_NAMESPACE), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
  assert.equal(uuid5('python.org', DNS_NAMESPACE), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
  // the same name in the assistants' namespace is another id (remembered ids are kept per namespace)
  assert.notEqual(uuid5('python.org'), uuid5('python.org', DNS_NAMESPACE));
  assert.equal(uuid5('python.org'), uuid5('python.org'));
});

test('uuid5 stays right past the number of ids it remembers', () => {
  const first = uuid5('name-0', DNS_NAMESPACE);
  const ids = new Set<string>();
  for (let i = 0; i < 2500; i += 1) ids.add(uuid5(`name-${i}`, DNS_NAMESPACE));
  assert.equal(ids.size, 2500);
  assert.equal(uuid5('name-0', DNS_NAMESPACE), first);
  assert.equal(uuid5('python.org', DNS_NAMESPACE), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
});

test('uuid7: version 7, RFC variant, increasing, and random bits never handed out twice', () => {
  const before = Date.now();
  const ids = Array.from({ length: 1200 }, () => uuid7()); // several draws of random bytes from the system
  const after = Date.now();
  const tails = new Set<string>();
  for (const [i, id] of ids.entries()) {
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    assert.ok(ms >= before && ms <= after + 1, `${id}: its time`);
    if (i > 0) assert.ok(id > ids[i - 1]!, `${id} after ${ids[i - 1]}`);
    tails.add(id.slice(19)); // the variant's byte's random bits and the 6 random bytes after it
  }
  assert.equal(tails.size, ids.length);
});

test('uuid4: version 4, RFC variant, lowercase, never the same twice', () => {
  const ids = Array.from({ length: 1200 }, () => uuid4()); // several draws of random bytes from the system
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
  // an id is not the buffer's text it was made in: ids made later do not change it
  const first = ids[0]!;
  const copy = `${first}`;
  uuid4();
  assert.equal(first, copy);
});
