// The shipped `connected` graph asks for its user's token in process (agentplane-server/auth):
// the run stops with an interrupt carrying the consent URL, the test consents at a real OAuth
// server (oidc-provider on loopback), and the resumed run goes on with the token; the next run
// gets the stored token without stopping; a token the graph's API refuses (401) is replaced by
// a fresh one on the graph's retry. Runs on both stores (AGENTPLANE_TEST_BACKEND=postgres).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestServer, tempDir, type TestServer } from '../support/server.ts';
import { json } from '../control-plane/support.ts';
import { CLIENT, startOAuthServer, type OAuthServer } from '../control-plane/oauthServer.ts';

describe('a graph gets its user’s token through an interrupt', () => {
  let server: TestServer;
  let idp: OAuthServer;
  const tenant = randomUUID();

  before(async () => {
    server = await startTestServer({
      // the `connected` graph: a LangGraph graph
      exampleGraphs: 'all',
      env: {
        AGENTPLANE_API_KEYS: `graph-key:${tenant}`,
        AGENTPLANE_TOKEN_KEY: randomBytes(32).toString('hex'),
        AGENTPLANE_AUTH_ALLOW_HTTP: '1',
        AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128',
        AGENTPLANE_AGENT_AUTH_TENANT: tenant,
      },
    });
    idp = await startOAuthServer([`${server.url}/v2/auth/callback/idp`]);
    await json(
      await server.api('/v2/auth/providers', {
        method: 'POST',
        headers: { 'x-api-key': 'graph-key' },
        json: { provider_id: 'idp', name: 'IdP', ...CLIENT, auth_url: `${idp.issuer}/auth`, token_url: `${idp.issuer}/token`, uses_pkce: true },
      }),
      200,
    );
  });
  after(async () => {
    await server.close();
    await idp.close();
  });

  const run = (threadId: string, extra: Record<string, unknown>, configurable: Record<string, unknown> = {}) =>
    server.api(`/threads/${threadId}/runs/wait`, {
      method: 'POST',
      json: {
        assistant_id: 'connected',
        config: { configurable: { user_id: 'alice', auth_provider: 'idp', auth_scopes: ['read'], ...configurable } },
        ...extra,
      },
    });

  it('is interrupted with the auth URL, and resumes with the token once the user consented', async () => {
    const thread = await json(await server.api('/threads', { method: 'POST', json: {} }), 200);
    await json(await run(thread.thread_id, { input: { messages: [{ role: 'user', content: 'connect' }] } }), 200);
    const state = await json(await server.api(`/threads/${thread.thread_id}/state`), 200);
    const [interrupt] = state.tasks[0].interrupts;
    assert.equal(interrupt.value.type, 'auth_required');
    assert.equal(interrupt.value.provider, 'idp');
    assert.equal(new URL(interrupt.value.url).searchParams.get('redirect_uri'), `${server.url}/v2/auth/callback/idp`);

    assert.equal((await fetch(await idp.consent(interrupt.value.url, 'alice'))).status, 200);
    const { token } = await json(await server.api(`/v2/auth/wait/${interrupt.value.auth_id}?timeout=5`, { headers: { 'x-api-key': 'graph-key' } }), 200);
    assert.equal((await idp.introspect(token)).sub, 'alice');

    const resumed = await json(await run(thread.thread_id, { command: { resume: 'consented' } }), 200);
    const last = resumed.messages.at(-1);
    assert.equal(last.content, `Connected to idp (token …${token.slice(-4)}).`);
    assert.deepEqual((await json(await server.api(`/threads/${thread.thread_id}/state`), 200)).next, []);

    // the stored token: a new thread goes through without stopping
    const again = await json(await server.api('/threads', { method: 'POST', json: {} }), 200);
    const direct = await json(await run(again.thread_id, { input: { messages: [{ role: 'user', content: 'again' }] } }), 200);
    assert.equal(direct.messages.at(-1).content, `Connected to idp (token …${token.slice(-4)}).`);
  });

  it('gets a fresh token when the API refuses the stored one before its expiry', async () => {
    // an API that accepts what the provider's introspection says is active
    const tokensSeen: string[] = [];
    const resource = http.createServer((req, res) => {
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      tokensSeen.push(token);
      void idp.introspect(token).then(({ active }) => res.writeHead(active ? 200 : 401).end());
    });
    await new Promise<void>((resolve) => resource.listen(0, '127.0.0.1', resolve));
    try {
      const resourceUrl = `http://127.0.0.1:${(resource.address() as AddressInfo).port}/me`;
      const [stored] = await json(await server.api('/v2/auth/tokens?user_id=alice', { headers: { 'x-api-key': 'graph-key' } }), 200);
      const thread = await json(await server.api('/threads', { method: 'POST', json: {} }), 200);
      const before = await json(
        await run(thread.thread_id, { input: { messages: [{ role: 'user', content: 'use it' }] } }, { resource_url: resourceUrl }),
        200,
      );
      assert.match(before.messages.at(-1).content, / answered 200\.$/);
      const refused = tokensSeen[0];
      await idp.invalidate(refused);

      const after = await json(await run(thread.thread_id, { input: { messages: [{ role: 'user', content: 'again' }] } }, { resource_url: resourceUrl }), 200);
      assert.deepEqual(tokensSeen.slice(1, 2), [refused]);
      const fresh = tokensSeen[2];
      assert.ok(fresh && fresh !== refused, JSON.stringify(tokensSeen));
      assert.equal(after.messages.at(-1).content, `Connected to idp (token …${fresh.slice(-4)}); ${resourceUrl} answered 200.`);
      assert.equal((await idp.introspect(fresh)).active, true);
      // refreshed in place: still the one stored token
      const listed = await json(await server.api('/v2/auth/tokens?user_id=alice', { headers: { 'x-api-key': 'graph-key' } }), 200);
      assert.deepEqual(
        listed.map((t: { id: string }) => t.id),
        [stored.id],
      );
    } finally {
      resource.closeAllConnections();
      await new Promise<void>((resolve) => resource.close(() => resolve()));
    }
  });
});

describe('agent auth on the embedded default, no settings', () => {
  let server: TestServer;
  // no AGENTPLANE_API_KEYS: the server makes its keys (the API key, the token key) in the data
  // directory, as `npm start` does; the graph reaches the auth service through the server's port
  before(async () => {
    const dataDir = tempDir();
    server = await startTestServer({
      dataDir,
      env: { AGENTPLANE_API_KEYS: '' },
      project: { graphs: { connected: './examples/graphs/connected.ts:connected' } },
    });
    // the provider registered with the key the server printed
    const key = (JSON.parse(fs.readFileSync(path.join(dataDir, 'api-keys.json'), 'utf8')) as { keys: { key: string }[] }).keys[0].key;
    const github = {
      provider_id: 'github',
      name: 'GitHub',
      client_id: 'an-oauth-app',
      client_secret: 'its-secret',
      auth_url: 'https://github.com/login/oauth/authorize',
      token_url: 'https://github.com/login/oauth/access_token',
    };
    await json(await server.api('/v2/auth/providers', { method: 'POST', headers: { 'x-api-key': key }, json: github }), 200);
  });
  after(() => server.close());

  it('lets the shipped connected graph reach its consent step, with no tenant setting', async () => {
    const thread = await json(await server.api('/threads', { method: 'POST', json: {} }), 200);
    await json(
      await server.api(`/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: 'connected', input: { messages: [{ role: 'user', content: 'connect' }] }, config: { configurable: { user_id: 'bob' } } },
      }),
      200,
    );
    const state = await json(await server.api(`/threads/${thread.thread_id}/state`), 200);
    const [interrupt] = state.tasks[0].interrupts;
    assert.equal(interrupt.value.type, 'auth_required');
    assert.equal(interrupt.value.provider, 'github');
    assert.match(interrupt.value.url, /^https:\/\/github\.com\/login\/oauth\/authorize\?/);
  });
});
