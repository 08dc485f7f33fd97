// The auth service against a real OAuth 2.0 authorization server on loopback (oidc-provider):
// authenticate → the user's URL → login and consent → the callback → wait gets the token the
// server's introspection accepts; stored tokens handed out again, refreshed, confined to their
// user and tenant, deleted (revoked) alone or with their provider; forged and replayed callbacks
// refused alike. Runs on both stores (AGENTPLANE_TEST_BACKEND=postgres).
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { tempDir, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testBackend } from '../../support/postgres.ts';
import { json, type Api } from '../../control-plane/support.ts';
import { ACCESS_TOKEN_TTL, CLIENT, startOAuthServer, type OAuthServer } from '../../control-plane/oauthServer.ts';

const TOKEN_KEY = randomBytes(32).toString('base64');
const OTHER_TENANT = randomUUID();

describe('agent auth: tokens for users through a real OAuth server', () => {
  let server: InProcessApp;
  let idp: OAuthServer;
  let api: Api;
  let other: Api;
  const dataDir = tempDir();

  before(async () => {
    server = await areaApp('control-plane', {
      dataDir,
      env: {
        AGENTPLANE_TOKEN_KEY: TOKEN_KEY,
        AGENTPLANE_AUTH_ALLOW_HTTP: '1',
        AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128',
        AGENTPLANE_API_KEYS: `key-a:${randomUUID()},key-b:${OTHER_TENANT}`,
      },
    });
    api = (p, init = {}) => server.api(p, { ...init, headers: { 'x-api-key': 'key-a' } });
    other = (p, init = {}) => server.api(p, { ...init, headers: { 'x-api-key': 'key-b' } });
    idp = await startOAuthServer([`${server.url}/v2/auth/callback/idp`, `${server.url}/v2/auth/callback/mcp-idp`]);
    await json(
      await api('/v2/auth/providers', {
        method: 'POST',
        json: {
          provider_id: 'idp',
          name: 'Test IdP',
          ...CLIENT,
          auth_url: `${idp.issuer}/auth`,
          token_url: `${idp.issuer}/token`,
          revocation_url: `${idp.issuer}/token/revocation`,
          uses_pkce: true,
        },
      }),
      200,
    );
  });
  after(async () => {
    await server.close();
    await idp.close();
  });

  const authenticate = (who: Api, user_id: string, scopes = ['repo'], extra: Record<string, unknown> = {}) =>
    who('/v2/auth/authenticate', { method: 'POST', json: { provider: 'idp', scopes, user_id, ...extra } });

  /** authenticate → consent as the user → the callback, as the browser goes; the callback's URL and page. */
  async function completeFlow(user: string, scopes = ['repo']) {
    const started = await json(await authenticate(api, user, scopes), 200);
    assert.equal(started.status, 'pending');
    const callback = await idp.consent(started.url, user);
    const page = await server.fetch(callback);
    assert.equal(page.status, 200, await page.clone().text());
    assert.match(await page.text(), /Connected/);
    return { started, callback };
  }

  let aliceToken = '';
  let replay = '';

  it('starts a flow with PKCE, completes it through the callback, and wait answers the token the server accepts', async () => {
    const started = await json(await authenticate(api, 'alice'), 200);
    assert.equal(started.status, 'pending');
    assert.equal(started.token, null);
    const url = new URL(started.url);
    assert.equal(url.origin + url.pathname, `${idp.issuer}/auth`);
    assert.equal(url.searchParams.get('redirect_uri'), `${server.url}/v2/auth/callback/idp`);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(url.searchParams.get('scope'), 'repo');
    // nothing yet: a short wait times out
    assert.deepEqual(await json(await api(`/v2/auth/wait/${started.auth_id}?timeout=0.2`), 200), { status: 'timeout', token: null });
    const waiting = api(`/v2/auth/wait/${started.auth_id}?timeout=30`);
    replay = await idp.consent(started.url, 'alice');
    assert.ok(replay.startsWith(`${server.url}/v2/auth/callback/idp?`), replay);
    const page = await server.fetch(replay);
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const done = await json(await waiting, 200);
    assert.equal(done.status, 'completed');
    aliceToken = done.token;
    const introspected = await idp.introspect(aliceToken);
    assert.equal(introspected.active, true);
    assert.equal(introspected.sub, 'alice');
    assert.equal(introspected.client_id, CLIENT.client_id);
  });

  it('hands the stored token out again without a flow, to its user only', async () => {
    const again = await json(await authenticate(api, 'alice'), 200);
    assert.deepEqual(again, { status: 'completed', url: null, auth_id: null, token: aliceToken, user_id: 'alice', metadata: {} });
    // another user of the tenant gets a flow of their own
    assert.equal((await json(await authenticate(api, 'bob'), 200)).status, 'pending');
    // more scopes than the token has: a new flow
    assert.equal((await json(await authenticate(api, 'alice', ['repo', 'read']), 200)).status, 'pending');
    const listed = await json(await api('/v2/auth/tokens?user_id=alice'), 200);
    assert.equal(listed.length, 1);
    assert.deepEqual(Object.keys(listed[0]).sort(), [
      'created_at',
      'expires_at',
      'id',
      'provider_account_label',
      'provider_id',
      'scopes',
      'updated_at',
      'user_id',
    ]);
    assert.deepEqual(listed[0].scopes, ['repo']);
    assert.equal(JSON.stringify(listed).includes(aliceToken), false);
    assert.deepEqual(await json(await api('/v2/auth/tokens?user_id=bob'), 200), []);
  });

  it('keeps tokens apart per tenant: another tenant finds neither provider, flow nor token', async () => {
    const [token] = await json(await api('/v2/auth/tokens?user_id=alice'), 200);
    assert.deepEqual(await json(await authenticate(other, 'alice'), 404), { detail: 'Provider ID idp not found.' });
    assert.deepEqual(await json(await other('/v2/auth/tokens?user_id=alice'), 200), []);
    // the tenant-wide listing (no user named) is the tenant's alone too
    assert.deepEqual(await json(await other('/v2/auth/tokens'), 200), []);
    assert.deepEqual(
      (await json(await api('/v2/auth/tokens'), 200)).map((t: { id: string; user_id: string }) => [t.id, t.user_id]),
      [[token.id, 'alice']],
    );
    const notFound = { detail: `Token ${token.id} not found.` };
    assert.deepEqual(await json(await other(`/v2/auth/tokens/${token.id}?user_id=alice`, { method: 'DELETE' }), 404), notFound);
    assert.deepEqual(
      await json(await other(`/v2/auth/tokens/${token.id}/metadata?user_id=alice`, { method: 'PATCH', json: { provider_account_label: 'x' } }), 404),
      notFound,
    );
    // and within the tenant, another user's token is not bob's to touch
    assert.deepEqual(await json(await api(`/v2/auth/tokens/${token.id}?user_id=bob`, { method: 'DELETE' }), 404), notFound);
    const pending = await json(await authenticate(api, 'carol'), 200);
    assert.deepEqual(await json(await other(`/v2/auth/wait/${pending.auth_id}?timeout=0`), 200), { status: 'not_found', token: null });
    assert.equal((await idp.introspect(aliceToken)).active, true);
  });

  it('refuses a replayed callback and a forged one with the same page, and stores nothing for them', async () => {
    const replayed = await server.fetch(replay);
    assert.equal(replayed.status, 400);
    const refusal = await replayed.text();
    const started = await json(await authenticate(api, 'mallory'), 200);
    const state = new URL(started.url).searchParams.get('state')!;
    const forgeries = [
      `${server.url}/v2/auth/callback/idp?code=abc&state=${encodeURIComponent(`${started.auth_id}.${'A'.repeat(43)}`)}`,
      `${server.url}/v2/auth/callback/idp?code=abc&state=${randomUUID()}.${'B'.repeat(43)}`,
      `${server.url}/v2/auth/callback/idp?code=abc`,
      // the right state at another provider's callback
      `${server.url}/v2/auth/callback/mcp-idp?code=abc&state=${encodeURIComponent(state)}`,
    ];
    for (const forged of forgeries) {
      const answer = await server.fetch(forged);
      assert.equal(answer.status, 400, forged);
      assert.equal(await answer.text(), refusal);
    }
    // the forgeries did not use the flow up: its own consent still completes it
    const callback = await idp.consent(started.url, 'mallory');
    assert.equal((await server.fetch(callback)).status, 200);
    assert.equal((await json(await api(`/v2/auth/wait/${started.auth_id}?timeout=5`), 200)).status, 'completed');
  });

  it('refreshes a token with its refresh token before it expires', async () => {
    const [token] = await json(await api('/v2/auth/tokens?user_id=alice'), 200);
    const refreshAt = Date.parse(token.expires_at) - 60_000;
    assert.ok(refreshAt - Date.now() <= (ACCESS_TOKEN_TTL - 60) * 1000);
    // the server and the provider run in this process: their clock is moved to the moment the
    // token enters its refresh margin, not waited for (~10 s)
    mock.timers.enable({ apis: ['Date'], now: Math.max(Date.now(), refreshAt + 100) });
    try {
      const refreshed = await json(await authenticate(api, 'alice'), 200);
      assert.equal(refreshed.status, 'completed');
      assert.notEqual(refreshed.token, aliceToken);
      assert.equal((await idp.introspect(refreshed.token)).active, true);
      const [after] = await json(await api('/v2/auth/tokens?user_id=alice'), 200);
      assert.equal(after.id, token.id);
      assert.ok(Date.parse(after.expires_at) > Date.parse(token.expires_at));
      aliceToken = refreshed.token;
    } finally {
      mock.timers.reset();
    }
  });

  it('labels a token, and deleting it revokes it at the provider', async () => {
    const [token] = await json(await api('/v2/auth/tokens?user_id=alice'), 200);
    const labelled = await json(
      await api(`/v2/auth/tokens/${token.id}/metadata?user_id=alice`, { method: 'PATCH', json: { provider_account_label: 'alice@idp' } }),
      200,
    );
    assert.equal(labelled.provider_account_label, 'alice@idp');
    assert.deepEqual(await json(await api(`/v2/auth/tokens/${token.id}?user_id=alice`, { method: 'DELETE' }), 200), { message: 'Token deleted.' });
    assert.equal((await idp.introspect(aliceToken)).active, false);
    assert.deepEqual(await json(await api('/v2/auth/tokens?user_id=alice'), 200), []);
    await json(await api(`/v2/auth/tokens/${token.id}?user_id=alice`, { method: 'DELETE' }), 404);
  });

  it('makes a provider from an MCP server’s metadata (RFC 9728 → RFC 8414 / OpenID → RFC 7591) and gets a token through it', async () => {
    const mcp = await startMcpMetadataServer(idp.issuer);
    try {
      const created = await json(
        await api('/v2/auth/providers/mcp-discover', { method: 'POST', json: { provider_id: 'mcp-idp', name: 'MCP', mcp_server_url: mcp.url } }),
        200,
      );
      assert.equal(created.is_dynamic_client, true);
      assert.equal(created.mcp_server_url, mcp.url);
      assert.equal(created.auth_url, `${idp.issuer}/auth`);
      assert.equal(created.token_url, `${idp.issuer}/token`);
      assert.equal(created.revocation_url, `${idp.issuer}/token/revocation`);
      assert.equal(created.uses_pkce, true);
      assert.equal('client_secret' in created, false);
      assert.notEqual(created.client_id, CLIENT.client_id);
      const started = await json(
        await api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'mcp-idp', scopes: ['read'], user_id: 'alice' } }),
        200,
      );
      assert.equal(new URL(started.url).searchParams.get('client_id'), created.client_id);
      assert.equal((await server.fetch(await idp.consent(started.url, 'alice'))).status, 200);
      const done = await json(await api(`/v2/auth/wait/${started.auth_id}?timeout=5`), 200);
      assert.equal((await idp.introspect(done.token)).active, true);
      await json(await api('/v2/auth/providers/mcp-discover', { method: 'POST', json: { provider_id: 'mcp-idp', name: 'MCP', mcp_server_url: mcp.url } }), 409);
      const none = await json(
        await api('/v2/auth/providers/mcp-discover', { method: 'POST', json: { provider_id: 'nothing', name: 'No', mcp_server_url: `${idp.issuer}/nothing` } }),
        400,
      );
      assert.match(none.detail, /^MCP discovery failed: /);
      await json(await api('/v2/auth/providers/mcp-idp', { method: 'DELETE' }), 200);
    } finally {
      await mcp.close();
    }
  });

  it('deletes a user’s tokens for a provider, and every token with its provider', async () => {
    await completeFlow('dave');
    const deleted = await json(await api('/v2/auth/tokens?user_id=dave&provider_id=idp', { method: 'DELETE' }), 200);
    assert.deepEqual(deleted, { message: 'Deleted 1 token(s).', provider_id: 'idp' });
    await completeFlow('erin');
    const pending = await json(await authenticate(api, 'frank'), 200);
    assert.deepEqual(await json(await api('/v2/auth/providers/idp', { method: 'DELETE' }), 200), {});
    assert.deepEqual(await json(await api('/v2/auth/tokens?user_id=erin'), 200), []);
    assert.deepEqual(await json(await api('/v2/auth/tokens?user_id=mallory'), 200), []);
    assert.deepEqual(await json(await api(`/v2/auth/wait/${pending.auth_id}?timeout=0`), 200), { status: 'not_found', token: null });
    const counts = { tokens: await server.store.collection('cp-auth-tokens').count(), flows: await server.store.collection('cp-auth-flows').count() };
    assert.deepEqual(counts, { tokens: 0, flows: 0 });
  });
});

describe('agent auth: the operator’s key and public URL', () => {
  it('keeps tokens sealed, refuses a start without the key once tokens exist, and rotates the key', async () => {
    const dataDir = tempDir();
    const env = { AGENTPLANE_AUTH_ALLOW_HTTP: '1', AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128', AGENTPLANE_API_KEYS: `key-r:${randomUUID()}` };
    const headers = { 'x-api-key': 'key-r' };
    let server = await areaApp('control-plane', { dataDir, env: { ...env, AGENTPLANE_TOKEN_KEY: TOKEN_KEY } });
    const idp = await startOAuthServer([`${server.url}/v2/auth/callback/idp`]);
    try {
      const provider = { provider_id: 'idp', name: 'IdP', ...CLIENT, auth_url: `${idp.issuer}/auth`, token_url: `${idp.issuer}/token`, uses_pkce: true };
      await json(await server.api('/v2/auth/providers', { method: 'POST', headers, json: provider }), 200);
      const body = { provider: 'idp', scopes: ['repo'], user_id: 'gina' };
      const started = await json(await server.api('/v2/auth/authenticate', { method: 'POST', headers, json: body }), 200);
      assert.equal((await server.fetch(await idp.consent(started.url, 'gina'))).status, 200);
      const { token } = await json(await server.api(`/v2/auth/wait/${started.auth_id}?timeout=5`, { headers }), 200);
      const sealedBefore = ((await server.store.collection('cp-auth-tokens').list()) as { sealed: string }[])[0].sealed;
      assert.equal(JSON.stringify(await server.store.collection('cp-auth-tokens').list()).includes(token), false);
      await server.close();

      // a key made on this start would open none of them: refused, and no key file left behind
      await assert.rejects(areaApp('control-plane', { dataDir, env }), /AGENTPLANE_TOKEN_KEY/);
      assert.equal(fs.existsSync(path.join(dataDir, 'token-key')), false);
      await assert.rejects(areaApp('control-plane', { dataDir, env: { ...env, AGENTPLANE_TOKEN_KEY: 'short' } }), /32-byte key/);

      const next = randomBytes(32).toString('hex');
      server = await areaApp('control-plane', { dataDir, env: { ...env, AGENTPLANE_TOKEN_KEY: next, AGENTPLANE_TOKEN_KEY_PREVIOUS: TOKEN_KEY } });
      // opened with the previous key (the token as it was, or refreshed with its refresh token if the restart took long)
      const again = await json(await server.api('/v2/auth/authenticate', { method: 'POST', headers, json: body }), 200);
      assert.equal(again.status, 'completed');
      assert.equal((await idp.introspect(again.token)).active, true);
      const sealedAfter = ((await server.store.collection('cp-auth-tokens').list()) as { sealed: string }[])[0].sealed;
      assert.notEqual(sealedAfter.split('.')[1], sealedBefore.split('.')[1]);
      await server.close();
      // sealed again under the new key: the old one is no longer needed
      server = await areaApp('control-plane', { dataDir, env: { ...env, AGENTPLANE_TOKEN_KEY: next } });
      const last = await json(await server.api('/v2/auth/authenticate', { method: 'POST', headers, json: body }), 200);
      assert.equal(last.status, 'completed');
      assert.equal((await idp.introspect(last.token)).active, true);
    } finally {
      await server.close();
      await idp.close();
    }
  });

  it('answers 501 without a key, seals tokens, and refuses to start without the key once tokens exist', async () => {
    // no data directory to keep a key in
    const keyless = await areaApp('control-plane', {
      dataDir: null,
      env: { AGENTPLANE_AUTH_ALLOW_HTTP: '1', AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128' },
    });
    try {
      await json(
        await keyless.api('/v2/auth/providers', {
          method: 'POST',
          json: { provider_id: 'p', name: 'P', client_id: 'c', auth_url: 'https://idp.example/auth', token_url: 'https://idp.example/token' },
        }),
        200,
      );
      const answer = await json(await keyless.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'p', scopes: [], user_id: 'u' } }), 501);
      assert.match(answer.detail, /AGENTPLANE_TOKEN_KEY/);
    } finally {
      await keyless.close();
    }
  });

  it('builds the callback URL from AGENTPLANE_PUBLIC_URL', async () => {
    const served = await areaApp('control-plane', { env: { AGENTPLANE_TOKEN_KEY: TOKEN_KEY, AGENTPLANE_PUBLIC_URL: 'https://agents.acme.example' } });
    try {
      await json(
        await served.api('/v2/auth/providers', {
          method: 'POST',
          json: { provider_id: 'gh', name: 'GH', client_id: 'c', auth_url: 'https://idp.example/auth?x=1', token_url: 'https://idp.example/token' },
        }),
        200,
      );
      const started = await json(
        await served.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'gh', scopes: ['a', 'b', 'a'], user_id: 'u' } }),
        200,
      );
      const url = new URL(started.url);
      assert.equal(url.searchParams.get('redirect_uri'), 'https://agents.acme.example/v2/auth/callback/gh');
      assert.equal(url.searchParams.get('x'), '1');
      assert.equal(url.searchParams.get('scope'), 'a b');
      assert.equal(url.searchParams.get('code_challenge'), null);
    } finally {
      await served.close();
    }
  });
});

/** An MCP server's OAuth face: 401 with a `resource_metadata` pointer (RFC 9728 §5.1), and the metadata naming the authorization server. */
async function startMcpMetadataServer(issuer: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [issuer], bearer_methods_supported: ['header'] }));
    }
    if (req.url === '/mcp') {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
      return res.end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every file under `dir`, read as text (what an attacker with the data directory reads). */
function everyFileText(dir: string): string {
  let text = '';
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
  }
  return text;
}

describe('agent auth: a provider held to the rules', () => {
  it("keeps a provider's client_secret sealed at rest; one kept in clear before a key was set is sealed at the next start, and still works", async () => {
    const dataDir = tempDir();
    // one public URL for both starts (each listens on a port of its own): the IdP knows one redirect per provider
    const publicUrl = 'http://agentplane.invalid';
    const env = {
      AGENTPLANE_AUTH_ALLOW_HTTP: '1',
      AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128',
      AGENTPLANE_API_KEYS: `key-s:${randomUUID()}`,
      AGENTPLANE_PUBLIC_URL: publicUrl,
    };
    const headers = { 'x-api-key': 'key-s' };
    let server = await areaApp('control-plane', { dataDir, env });
    const idp = await startOAuthServer([`${publicUrl}/v2/auth/callback/idp`, `${publicUrl}/v2/auth/callback/idp2`]);
    try {
      const provider = { provider_id: 'idp', name: 'IdP', ...CLIENT, auth_url: `${idp.issuer}/auth`, token_url: `${idp.issuer}/token`, uses_pkce: true };
      await json(await server.api('/v2/auth/providers', { method: 'POST', headers, json: provider }), 200);
      // kept as an earlier version kept it while no key was set (every start on a data directory has one now): in clear
      const providers = server.store.collection('cp-auth-providers') as unknown as {
        list(): Promise<{ id: string }[]>;
        update(id: string, change: (r: object) => object): Promise<unknown>;
      };
      for (const { id } of await providers.list()) await providers.update(id, (r) => ({ ...r, client_secret: CLIENT.client_secret }));
      await server.close();
      if (testBackend() !== 'postgres') assert.ok(everyFileText(dataDir).includes(CLIENT.client_secret), 'kept in clear while no key was set');

      server = await areaApp('control-plane', { dataDir, env: { ...env, AGENTPLANE_TOKEN_KEY: TOKEN_KEY } });
      const stored = (await server.store.collection('cp-auth-providers').list()) as { client_secret: string }[];
      assert.equal(JSON.stringify(stored).includes(CLIENT.client_secret), false, 'sealed at the start with a key');
      // one made now is sealed from the start
      await json(await server.api('/v2/auth/providers', { method: 'POST', headers, json: { ...provider, provider_id: 'idp2' } }), 200);
      await json(await server.api('/v2/auth/providers/idp2', { method: 'PATCH', headers, json: { client_secret: CLIENT.client_secret } }), 200);
      assert.equal(JSON.stringify(await server.store.collection('cp-auth-providers').list()).includes(CLIENT.client_secret), false);
      // and the token endpoint still gets the secret: a flow completes through each
      for (const id of ['idp', 'idp2']) {
        const started = await json(
          await server.api('/v2/auth/authenticate', { method: 'POST', headers, json: { provider: id, scopes: ['repo'], user_id: 'sam' } }),
          200,
        );
        const callback = (await idp.consent(started.url, 'sam')).replace(publicUrl, server.url);
        assert.equal((await server.fetch(callback)).status, 200);
        const done = await json(await server.api(`/v2/auth/wait/${started.auth_id}?timeout=5`, { headers }), 200);
        assert.equal(done.status, 'completed', JSON.stringify(done));
      }
      await server.close();
      if (testBackend() !== 'postgres') assert.equal(everyFileText(dataDir).includes(CLIENT.client_secret), false, 'a clear secret left in the data directory');
      // without the key, the sealed secrets cannot be sent: the start is refused, naming the setting
      await assert.rejects(areaApp('control-plane', { dataDir, env }), /AGENTPLANE_TOKEN_KEY/);
      server = await areaApp('control-plane', { dataDir, env: { ...env, AGENTPLANE_TOKEN_KEY: TOKEN_KEY } });
    } finally {
      await server.close();
      await idp.close();
    }
  });

  it('refuses provider URLs that are not https (javascript:, data:, file:, plain http unless allowed) with 422, storing nothing', async () => {
    const server = await areaApp('control-plane', { env: { AGENTPLANE_TOKEN_KEY: TOKEN_KEY } });
    try {
      const base = {
        provider_id: 'p',
        name: 'P',
        client_id: 'c',
        client_secret: 's',
        auth_url: 'https://idp.example/auth',
        token_url: 'https://idp.example/token',
      };
      for (const [field, url] of [
        ['auth_url', 'javascript:alert(document.cookie)'],
        ['auth_url', 'data:text/html,<script>alert(1)</script>'],
        ['token_url', 'file:///etc/passwd'],
        ['token_url', 'http://idp.example/token'],
        ['revocation_url', 'gopher://idp.example/'],
        // issue 83: reads as github.com to the user who is handed the consent link, goes to 127.0.0.1
        ['auth_url', 'https://github.com@127.0.0.1/login/oauth/authorize'],
        ['auth_url', 'https://github.com:x@evil.example/authorize'],
        ['token_url', 'https://user@idp.example/token'],
      ] as const) {
        const refused = await json(await server.api('/v2/auth/providers', { method: 'POST', json: { ...base, [field]: url } }), 422);
        assert.deepEqual(refused.detail[0].loc, ['body', field], JSON.stringify(refused));
      }
      assert.deepEqual(await json(await server.api('/v2/auth/providers'), 200), []);
      await json(await server.api('/v2/auth/providers', { method: 'POST', json: base }), 200);
      await json(await server.api('/v2/auth/providers/p', { method: 'PATCH', json: { auth_url: 'javascript:alert(1)' } }), 422);
      const userinfo = await json(await server.api('/v2/auth/providers/p', { method: 'PATCH', json: { auth_url: 'https://github.com@127.0.0.1/' } }), 422);
      assert.match(userinfo.detail[0].msg, /user information/);
      assert.equal((await json(await server.api('/v2/auth/providers/p'), 200)).auth_url, base.auth_url);
      // the consent link handed out is the https one
      const started = await json(await server.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'p', scopes: [], user_id: 'u' } }), 200);
      assert.equal(new URL(started.url).protocol, 'https:');
    } finally {
      await server.close();
    }
  });
});
