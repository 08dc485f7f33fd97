// The shipped `connected` graph asks for its user's token in process (agentplane-server/auth):
// the run stops with an interrupt carrying the consent URL, the test consents at a real OAuth
// server (oidc-provider on loopback), and the resumed run goes on with the token; the next run
// gets the stored token without stopping. Runs on both stores (AGENTPLANE_TEST_BACKEND=postgres).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { json } from '../control-plane/support.ts';
import { CLIENT, startOAuthServer, type OAuthServer } from '../control-plane/oauthServer.ts';

describe('a graph gets its user’s token through an interrupt', () => {
  let server: TestServer;
  let idp: OAuthServer;
  const tenant = randomUUID();

  before(async () => {
    server = await startTestServer({
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

  const run = (threadId: string, extra: Record<string, unknown>) =>
    server.api(`/threads/${threadId}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'connected', config: { configurable: { user_id: 'alice', auth_provider: 'idp', auth_scopes: ['read'] } }, ...extra },
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
});
