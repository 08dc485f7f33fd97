// Issue 11, item 2: a body nested deeper than AGENTPLANE_MAX_BODY_DEPTH (100 by default) is
// refused before anything is parsed or stored — 422 on REST, -32600 on the A2A endpoint —
// where a 6 KB request nested 2,500 deep used to be journalled and then break every read
// of the thread store (and the A2A endpoint answered HTTP 500 at depth 10,000).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../../src/runtime/config.ts';
import { depthExceededAt } from '../../../../src/runtime/transports/http/requestBody.ts';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { fixtureGraphs } from '../../../handlers/a2a/harness.ts';

/** JSON arrays nested `levels` deep: `[[[]]]` for 3. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** A createThread body `levels` deep in all: the body object, `metadata`, then arrays. */
const threadBody = (levels: number) => `{"metadata":{"deep":${nested(levels - 2)}}}`;

describe('depthExceededAt', () => {
  test('counts objects and arrays, not brackets inside strings, without recursion', () => {
    assert.equal(depthExceededAt('{"a":[1,{"b":2}]}', 3), -1);
    assert.equal(depthExceededAt('{"a":[1,{"b":2}]}', 2), 8);
    assert.equal(depthExceededAt('["[[[[", "\\"[[[", {"}}}": "]]]"}]', 2), -1);
    assert.equal(depthExceededAt('"\\\\"', 0), -1);
    assert.equal(depthExceededAt('[[],[],[[]]]', 2), 8);
    // a million levels: a recursive walk would overflow the stack long before
    assert.equal(depthExceededAt(nested(1_000_000), 100), 100);
  });

  test('AGENTPLANE_MAX_BODY_DEPTH is read and checked at start', () => {
    assert.equal(loadConfig([], {}).maxBodyDepth, 100);
    assert.equal(loadConfig([], { AGENTPLANE_MAX_BODY_DEPTH: '7' }).maxBodyDepth, 7);
    for (const bad of ['abc', '0', '-3', '1.5']) {
      assert.throws(() => loadConfig([], { AGENTPLANE_MAX_BODY_DEPTH: bad }), /AGENTPLANE_MAX_BODY_DEPTH must be a positive integer/);
    }
  });
});

describe('a real server refuses bodies nested too deep', () => {
  let server: InProcessApp;
  const count = async () => (await (await server.api('/threads/count', { method: 'POST', json: {} })).json()) as number;
  before(async () => {
    server = await areaApp('a2a', { project: { graphs: fixtureGraphs } });
  });
  after(() => server.close());

  test('REST: 101 levels → 422 {detail:[{loc, msg, type}]} and nothing stored; 100 levels are fine', async () => {
    const before = await count();
    for (const levels of [101, 2_500, 4_000, 100_000]) {
      const res = await server.api('/threads', { method: 'POST', headers: { 'content-type': 'application/json' }, body: threadBody(levels) });
      assert.equal(res.status, 422, `depth ${levels}`);
      const { detail } = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
      assert.equal(detail.length, 1);
      assert.deepEqual(detail[0].loc, ['body']);
      assert.equal(detail[0].type, 'too_deep');
      assert.match(detail[0].msg, /deeper than 100 levels.*AGENTPLANE_MAX_BODY_DEPTH/);
    }
    assert.equal(await count(), before, 'a refused body stored a thread');
    const ok = await server.api('/threads', { method: 'POST', headers: { 'content-type': 'application/json' }, body: threadBody(100) });
    assert.equal(ok.status, 200);
    const thread = (await ok.json()) as { thread_id: string };
    // the store serves it back, and searches still work
    assert.equal((await server.api(`/threads/${thread.thread_id}`)).status, 200);
    assert.equal((await server.api('/threads/search', { method: 'POST', json: {} })).status, 200);
  });

  test('A2A: 10,000 levels → HTTP 200 with a JSON-RPC -32600 error (id null), nothing started', async () => {
    const params = `{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"data","data":{"x":${nested(10_000)}}}]}}`;
    const res = await server.fetch(`${server.url}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${params}}`,
    });
    assert.equal(res.status, 200);
    const reply = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    assert.equal(reply.jsonrpc, '2.0');
    assert.equal(reply.id, null);
    assert.equal(reply.error.code, -32600);
    assert.match(reply.error.message, /deeper than 100 levels/);
  });
});

test('the depth limit follows AGENTPLANE_MAX_BODY_DEPTH', async () => {
  const server = await areaApp('a2a', { dataDir: null, env: { AGENTPLANE_MAX_BODY_DEPTH: '5' } });
  try {
    const post = (body: string) => server.api('/threads', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal((await post(threadBody(5))).status, 200);
    const refused = await post(threadBody(6));
    assert.equal(refused.status, 422);
    assert.match(((await refused.json()) as { detail: { msg: string }[] }).detail[0].msg, /deeper than 5 levels/);
  } finally {
    await server.close();
  }
});
