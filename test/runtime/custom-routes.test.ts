// http.app: the project's own routes answer beside the API (a Hono app or a Node handler);
// the API's routes win.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/server.ts';

describe('custom routes (http.app)', () => {
  it('serves a Hono app beside the API, which keeps its own paths', async () => {
    const server = await startTestServer({ project: { graphs: {}, http: { app: './test/fixtures/routes/hono.ts:app' } } });
    try {
      assert.deepEqual(await (await fetch(`${server.url}/custom/hello?name=ada`)).json(), { hello: 'ada' });
      const posted = await fetch(`${server.url}/custom/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      assert.equal(posted.status, 201);
      assert.deepEqual(await posted.json(), { echoed: { a: 1 } });
      assert.deepEqual(await (await fetch(`${server.url}/ok`)).json(), { ok: true });
      assert.equal((await fetch(`${server.url}/custom/missing`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it('serves a Node request handler', async () => {
    const server = await startTestServer({ project: { graphs: {}, http: { app: './test/fixtures/routes/node.mjs' } } });
    try {
      const res = await fetch(`${server.url}/custom/plain`);
      assert.equal(await res.text(), 'plain node handler');
      assert.equal((await fetch(`${server.url}/nothing`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it('refuses to start when the app export is neither', async () => {
    await assert.rejects(startTestServer({ project: { graphs: {}, http: { app: './test/fixtures/routes/hono.ts:nope' } } }), /http\.app: .*hono\.ts:nope is neither/);
  });
});
