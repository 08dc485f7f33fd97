// The JSON-RPC envelope on POST /a2a/{assistant_id}: every failure is a JSON-RPC error in HTTP 200.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

let server: InProcessApp;
before(async () => {
  server = await areaApp('a2a', { mock: true });
});
after(() => server.close());

async function rpc(body: string, headers: Record<string, string> = {}) {
  const res = await server.fetch(`${server.url}/a2a/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test('malformed JSON → -32700 with id null', async () => {
  const r = await rpc('{"jsonrpc": "2.0", "id": 1,');
  assert.equal(r.status, 200);
  assert.deepEqual({ id: r.body.id, code: r.body.error.code }, { id: null, code: -32700 });
});

test('invalid requests → -32600', async () => {
  for (const body of [
    '[]',
    '"x"',
    '{"jsonrpc":"1.0","id":1,"method":"tasks/get"}',
    '{"jsonrpc":"2.0","id":1}',
    '{"jsonrpc":"2.0","id":{"a":1},"method":"tasks/get"}',
  ]) {
    const r = await rpc(body);
    assert.equal(r.status, 200, body);
    assert.equal(r.body.error.code, -32600, body);
    assert.equal(r.body.jsonrpc, '2.0');
  }
});

test('unknown method → -32601, even without an id', async () => {
  const withId = await rpc('{"jsonrpc":"2.0","id":"a","method":"tasks/explode","params":{}}');
  assert.deepEqual([withId.body.id, withId.body.error.code], ['a', -32601]);
  const withoutId = await rpc('{"jsonrpc":"2.0","method":"tasks/explode","params":{}}');
  assert.deepEqual([withoutId.body.id, withoutId.body.error.code], [null, -32601]);
});

test('params that violate the method schema → -32602 naming the problem', async () => {
  const r = await rpc('{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"historyLength":"ten"}}');
  assert.equal(r.body.id, 7);
  assert.equal(r.body.error.code, -32602);
  assert.match(r.body.error.message, /id/);
  const notObject = await rpc('{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":[1]}');
  assert.equal(notObject.body.error.code, -32602);
});

test('ids are echoed exactly, numbers and strings alike; a request without id is answered with id null', async () => {
  const numeric = await rpc('{"jsonrpc":"2.0","id":42,"method":"tasks/get","params":{"id":"t-1"}}');
  assert.strictEqual(numeric.body.id, 42);
  const text = await rpc('{"jsonrpc":"2.0","id":"42","method":"tasks/get","params":{"id":"t-1"}}');
  assert.strictEqual(text.body.id, '42');
  // A2A has no notifications: without an id the answer comes all the same, with id null
  const idless = await rpc('{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"t-1"}}');
  assert.equal(idless.status, 200);
  assert.strictEqual(idless.body.id, null);
  assert.equal(idless.body.jsonrpc, '2.0');
  assert.ok('result' in idless.body || 'error' in idless.body);
});

test('streaming methods answer with Server-Sent Events whose data are JSON-RPC responses', async () => {
  const res = await server.fetch(`${server.url}/a2a/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'message/stream',
      params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } },
    }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /text\/event-stream/);
  const frames = (await res.text()).split('\n\n').filter((f) => f.includes('data:'));
  assert.ok(frames.length >= 1);
  for (const f of frames) {
    const data = JSON.parse(
      f
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    assert.equal(data.jsonrpc, '2.0');
    assert.equal(data.id, 3);
  }
});

test('a fractional id is an invalid request (ids are strings or integers), answered with id null', async () => {
  const r = await rpc('{"jsonrpc":"2.0","id":5e-324,"method":"tasks/get","params":{"id":"t-1"}}');
  assert.deepEqual([r.body.id, r.body.error.code], [null, -32600]);
});

test('a non-JSON content type is an invalid request, not a parse of the body', async () => {
  const r = await rpc('{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-1"}}', { 'content-type': 'text/plain' });
  assert.equal(r.status, 200);
  assert.deepEqual([r.body.id, r.body.error.code], [null, -32600]);
});

test('an empty by-name parameter is invalid params, located at its name', async () => {
  const r = await rpc('{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"":1,"id":"t-1"}}');
  assert.equal(r.body.error.code, -32602);
  assert.deepEqual(r.body.error.data, [{ loc: ['params', ''], msg: 'Invalid property name', type: 'value_error' }]);
});
