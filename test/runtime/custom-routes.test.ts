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

describe('http.disable_* switches', () => {
  it('turn off assistants, threads, runs, store and meta routes (404), leaving the rest', async () => {
    const off = await startTestServer({ project: { graphs: { echo: './examples/graphs/echo.ts:echo' }, http: { disable_assistants: true, disable_store: true, disable_meta: true } } });
    try {
      assert.equal((await fetch(`${off.url}/assistants/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
      assert.equal((await fetch(`${off.url}/store/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
      assert.equal((await fetch(`${off.url}/info`)).status, 404);
      assert.equal((await fetch(`${off.url}/ok`)).status, 200);
      assert.equal((await fetch(`${off.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 200);
    } finally {
      await off.close();
    }
    const noThreads = await startTestServer({ project: { graphs: {}, http: { disable_threads: true, disable_runs: true } } });
    try {
      assert.equal((await fetch(`${noThreads.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
      assert.equal((await fetch(`${noThreads.url}/threads/0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10/runs`)).status, 404);
      assert.equal((await fetch(`${noThreads.url}/info`)).status, 200);
    } finally {
      await noThreads.close();
    }
  });
});
