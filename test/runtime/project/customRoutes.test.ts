// http.app: the project's own routes answer beside the API (a Hono app or a Node handler);
// the API's routes win. On a port: the middleware passes API calls on to the server over
// loopback, and a run's webhook that is a path reaches the project's route through the port.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '@langchain/langgraph-sdk';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { webhooksReceived } from '../../fixtures/routes/hono.ts';

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
    await assert.rejects(
      startTestServer({ project: { graphs: {}, http: { app: './test/fixtures/routes/hono.ts:nope' } } }),
      /http\.app: .*hono\.ts:nope is neither/,
    );
  });
});

describe('http.app middleware around the API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      project: { graphs: { echo: './examples/graphs/echo.ts:echo' }, http: { app: './test/fixtures/routes/middleware.ts:app' } },
    });
  });
  after(() => server.close());
  const json = { 'content-type': 'application/json' };

  it('sets headers on the API’s answers, answers in its place, refuses before it', async () => {
    const info = await fetch(`${server.url}/info`);
    assert.equal(info.status, 200);
    assert.equal(info.headers.get('x-js-middleware'), 'true');
    assert.ok('version' in ((await info.json()) as object));
    assert.deepEqual(await (await fetch(`${server.url}/info?interrupt`)).json(), { status: 'interrupted' });
    const refused = await fetch(`${server.url}/threads`, { method: 'POST', headers: { ...json, 'x-blocked': '1' }, body: '{}' });
    assert.equal(refused.status, 403);
    assert.equal((await fetch(`${server.url}/threads/search`, { method: 'POST', headers: json, body: '{}' })).status, 200);
    assert.equal((await fetch(`${server.url}/custom/hello`)).headers.get('x-js-middleware'), 'true');
  });

  it('the API answers with the Host the client sent, though the middleware passes the call on over loopback', async () => {
    // fetch cannot set Host; the agent card's url is built from it
    const card = await new Promise<{ url?: string }>((resolve, reject) => {
      const req = http.request(new URL('/.well-known/agent-card.json?assistant_id=echo', server.url), { headers: { host: 'agents.example:8443' } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      req.end();
    });
    assert.match(card.url ?? '', /^http:\/\/agents\.example:8443\//);
  });

  it('rewrites the JSON body of a run request before the API reads it; streams pass through', async () => {
    const thread = (await (await fetch(`${server.url}/threads`, { method: 'POST', headers: json, body: '{}' })).json()) as { thread_id: string };
    const input = { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } };
    const created = await fetch(`${server.url}/threads/${thread.thread_id}/runs`, {
      method: 'POST',
      headers: { ...json, 'x-run-label': 'from-middleware' },
      body: JSON.stringify(input),
    });
    assert.equal(created.status, 200);
    // (the run's metadata also carries the assistant's and the thread's, as upstream's)
    assert.equal(((await created.json()) as { metadata: { label?: unknown } }).metadata.label, 'from-middleware');
    const streamed = await fetch(`${server.url}/threads/${thread.thread_id}/runs/stream`, { method: 'POST', headers: json, body: JSON.stringify(input) });
    assert.match(streamed.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(streamed.headers.get('x-js-middleware'), 'true');
    assert.deepEqual(
      [...(await streamed.text()).matchAll(/^event: (.+)$/gm)].map((m) => m[1]),
      ['metadata', 'values', 'values'],
    );
  });

  it('answers 404 for a path neither the API nor the app knows, whatever the app’s notFound says', async () => {
    for (const path of ['/nope', '/threads/not/an/api/path', '/assistants/x/y/z']) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.deepEqual(await res.json(), { detail: 'Not Found' }, path);
    }
    assert.deepEqual(await (await fetch(`${server.url}/custom/hello`)).json(), { hello: 'world' });
  });
});

describe('http.disable_* switches', () => {
  it('turn off assistants, threads, runs, store and meta routes (404), leaving the rest', async () => {
    const off = await startTestServer({
      project: { graphs: { echo: './examples/graphs/echo.ts:echo' }, http: { disable_assistants: true, disable_store: true, disable_meta: true } },
    });
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

describe("a run's webhook that is a path", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      project: {
        graphs: { echo: './examples/graphs/echo.ts:echo' },
        webhooks: { retry_base_ms: 50, url: { allowed_domains: ['127.0.0.1'], allowed_networks: ['127.0.0.1/32'] } },
        http: { app: './test/fixtures/routes/hono.ts:app' },
      },
    });
  });
  after(() => server.close());
  const say = (content: string) => ({ messages: [{ role: 'user', content }] });

  it("is delivered to the project's own route, as upstream; //host is no path", async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'echo', { input: say('to myself'), webhook: '/custom/webhook' });
    for (let i = 0; i < 100 && !webhooksReceived.length; i++) await new Promise((r) => setTimeout(r, 20));
    const [body] = webhooksReceived as Record<string, any>[];
    assert.equal(body?.run_id, run.run_id);
    assert.equal(body.status, 'success');
    assert.equal(body.values.messages.at(-1).content, 'to myself');
    for (const webhook of ['//elsewhere.example/hook', '/\\elsewhere.example/hook', 'custom/webhook']) {
      const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ assistant_id: 'echo', input: say('x'), webhook }),
      });
      assert.equal(res.status, 422, webhook);
    }
  });
});
