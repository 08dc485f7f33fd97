// A token the resource server refused (401) before its expiry, against a real OAuth server
// (oidc-provider on loopback): the caller's retry (`refused_token`) gets a fresh one the
// server's introspection accepts, refreshed with the refresh token at once; a second retry
// with the same refused token (a replayed node, another caller) gets that fresh one, not a
// second refresh; a refresh the server refuses (the grant revoked, RFC 7009) starts a flow, as for a
// missing token. Runs on both stores (AGENTPLANE_TEST_BACKEND=postgres).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { json, type Api } from '../../control-plane/support.ts';
import { CLIENT, startOAuthServer, type OAuthServer } from '../../control-plane/oauthServer.ts';

describe('agent auth: a token refused by the resource server', () => {
  let server: InProcessApp;
  let idp: OAuthServer;
  let api: Api;

  before(async () => {
    server = await areaApp('control-plane', {
      env: {
        AGENTPLANE_TOKEN_KEY: randomBytes(32).toString('base64'),
        AGENTPLANE_AUTH_ALLOW_HTTP: '1',
        AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128',
        AGENTPLANE_API_KEYS: `key-a:${randomUUID()}`,
      },
    });
    api = (p, init = {}) => server.api(p, { ...init, headers: { 'x-api-key': 'key-a' } });
    idp = await startOAuthServer([`${server.url}/v2/auth/callback/idp`]);
    const provider = { provider_id: 'idp', name: 'IdP', ...CLIENT, auth_url: `${idp.issuer}/auth`, token_url: `${idp.issuer}/token`, uses_pkce: true };
    await json(await api('/v2/auth/providers', { method: 'POST', json: provider }), 200);
  });
  after(async () => {
    await server.close();
    await idp.close();
  });

  const authenticate = (user_id: string, extra: Record<string, unknown> = {}) =>
    api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'idp', scopes: ['repo'], user_id, ...extra } });

  /** A token for `user` through the whole flow: authenticate → consent → callback → wait. */
  async function tokenFor(user: string): Promise<string> {
    const started = await json(await authenticate(user), 200);
    assert.equal(started.status, 'pending');
    assert.equal((await server.fetch(await idp.consent(started.url, user))).status, 200);
    const done = await json(await api(`/v2/auth/wait/${started.auth_id}?timeout=5`), 200);
    assert.equal(done.status, 'completed');
    return done.token;
  }

  it('refreshes it at once on the retry, though the clock says it is valid, and only once', async () => {
    const first = await tokenFor('alice');
    await idp.invalidate(first);
    assert.equal((await idp.introspect(first)).active, false);
    // without saying it was refused, the stored token is still answered (its expiry has not come)
    assert.equal((await json(await authenticate('alice'), 200)).token, first);

    const retried = await json(await authenticate('alice', { refused_token: first }), 200);
    assert.equal(retried.status, 'completed');
    assert.notEqual(retried.token, first);
    const introspected = await idp.introspect(retried.token);
    assert.equal(introspected.active, true);
    assert.equal(introspected.sub, 'alice');
    // still one token, refreshed in place
    const listed = await json(await api('/v2/auth/tokens?user_id=alice'), 200);
    assert.equal(listed.length, 1);

    // the same refused token again: the token that replaced it, not another refresh
    assert.equal((await json(await authenticate('alice', { refused_token: first }), 200)).token, retried.token);
    assert.equal((await json(await authenticate('alice'), 200)).token, retried.token);
    assert.equal((await idp.introspect(retried.token)).active, true);
  });

  it('starts a flow when the refresh is refused too, and the consent gets a token the server accepts', async () => {
    const first = await tokenFor('bob');
    await idp.revoke(first);
    const retried = await json(await authenticate('bob', { refused_token: first }), 200);
    assert.equal(retried.status, 'pending');
    assert.equal(retried.token, null);
    assert.equal((await server.fetch(await idp.consent(retried.url, 'bob'))).status, 200);
    const done = await json(await api(`/v2/auth/wait/${retried.auth_id}?timeout=5`), 200);
    assert.equal(done.status, 'completed');
    assert.notEqual(done.token, first);
    assert.equal((await idp.introspect(done.token)).active, true);
    assert.equal((await json(await authenticate('bob'), 200)).token, done.token);
  });
});
