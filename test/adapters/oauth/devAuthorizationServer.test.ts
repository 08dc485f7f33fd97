// The development OAuth provider (issue 89): on a server that offers it, a provider id the
// tenant has not configured gets a consent URL on this server; allowing it completes the flow
// with a token issued in process; a provider the tenant configures under that id is used
// instead. Its pages redirect only to this server's own callbacks, a code serves once and only
// with its PKCE verifier. Off, nothing of it answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { json } from '../../control-plane/support.ts';
import { loadConfig } from '../../../src/runtime/config.ts';

const GITHUB = {
  provider_id: 'github',
  name: 'GitHub',
  client_id: 'an-oauth-app',
  auth_url: 'https://github.com/login/oauth/authorize',
  token_url: 'https://github.com/login/oauth/access_token',
};

/** The consent form's fields as the page carries them (its hidden inputs). */
function formOf(html: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(
      name,
      value
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    );
  return form;
}

describe('the development OAuth provider, on', () => {
  let app: InProcessApp;
  before(async () => {
    app = await areaApp('control-plane', { env: { AGENTPLANE_DEV_OAUTH: 'on' } });
  });
  after(() => app.close());

  const authenticate = async (provider: string, user = 'alice') =>
    json(await app.api('/v2/auth/authenticate', { method: 'POST', json: { provider, scopes: ['read:user'], user_id: user } }), 200);
  const consent = async (url: string, decision: 'allow' | 'deny') => {
    const page = await app.fetch(url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Development only/);
    const form = formOf(html);
    form.set('decision', decision);
    return app.fetch('/dev/oauth/authorize', { method: 'POST', body: form });
  };

  it('stands in for an unconfigured provider: consent on this server, then a token', async () => {
    const started = await authenticate('github');
    assert.equal(started.status, 'pending');
    const url = new URL(started.url);
    assert.equal(url.origin + url.pathname, `${app.url}/dev/oauth/authorize`);
    assert.equal(url.searchParams.get('redirect_uri'), `${app.url}/v2/auth/callback/github`);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');

    const allowed = await consent(started.url, 'allow');
    assert.equal(allowed.status, 303);
    const back = new URL(allowed.headers.get('location')!);
    assert.equal(back.origin + back.pathname, `${app.url}/v2/auth/callback/github`);
    assert.equal((await app.fetch(back.href)).status, 200);
    const done = await json(await app.api(`/v2/auth/wait/${started.auth_id}?timeout=5`), 200);
    assert.equal(done.status, 'completed');
    assert.match(done.token, /^dev-/);
    // the next call gets the stored token at once
    const again = await authenticate('github');
    assert.equal(again.status, 'completed');
    assert.equal(again.token, done.token);
  });

  it('a denied consent fails the flow', async () => {
    const started = await authenticate('slack');
    const denied = await consent(started.url, 'deny');
    const back = new URL(denied.headers.get('location')!);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal((await app.fetch(back.href)).status, 400);
    assert.equal((await json(await app.api(`/v2/auth/wait/${started.auth_id}?timeout=5`), 200)).status, 'failed');
  });

  it('a provider the tenant configures replaces it, and the stand-in’s tokens are not handed out for it', async () => {
    await json(await app.api('/v2/auth/providers', { method: 'POST', json: { ...GITHUB } }), 200);
    const started = await authenticate('github');
    assert.equal(started.status, 'pending');
    assert.equal(new URL(started.url).origin, 'https://github.com');
  });

  it('never redirects off this server’s callbacks, and refuses what is not a PKCE code request', async () => {
    const started = await authenticate('gitlab');
    const asked = new URL(started.url);
    const variants: [string, string][] = [
      ['redirect_uri', 'https://evil.example/v2/auth/callback/gitlab'],
      ['redirect_uri', `${app.url}/somewhere/else`],
      ['client_id', 'another-client'],
      ['code_challenge_method', 'plain'],
      ['response_type', 'token'],
    ];
    for (const [name, value] of variants) {
      const changed = new URL(asked);
      changed.searchParams.set(name, value);
      assert.equal((await app.fetch(changed.href)).status, 400, `${name}=${value}: the page refuses`);
      const form = new URLSearchParams(changed.searchParams);
      form.set('decision', 'allow');
      const answered = await app.fetch('/dev/oauth/authorize', { method: 'POST', body: form });
      assert.equal(answered.status, 400, `${name}=${value}: the answer is refused`);
      assert.equal(answered.headers.get('location'), null);
    }
  });

  it('its token endpoint: a code serves once, with its verifier and redirect only; a refresh token rotates', async () => {
    const verifier = 'v'.repeat(43);
    const redirect = `${app.url}/v2/auth/callback/github`;
    const code = async () => {
      const form = new URLSearchParams({
        response_type: 'code',
        client_id: 'agentplane-dev',
        redirect_uri: redirect,
        state: 'a-state',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        decision: 'allow',
      });
      const answered = await app.fetch('/dev/oauth/authorize', { method: 'POST', body: form });
      return new URL(answered.headers.get('location')!).searchParams.get('code')!;
    };
    const token = (fields: Record<string, string>) =>
      app.fetch('/dev/oauth/token', { method: 'POST', body: new URLSearchParams({ client_id: 'agentplane-dev', ...fields }) });
    const grant = (c: string, fields: Record<string, string> = {}) =>
      token({ grant_type: 'authorization_code', code: c, redirect_uri: redirect, code_verifier: verifier, ...fields });

    const spent = await code();
    assert.equal((await grant(spent, { code_verifier: 'w'.repeat(43) })).status, 400, 'another verifier');
    assert.equal((await grant(spent)).status, 400, 'a refused code is spent');
    assert.equal((await grant(await code(), { redirect_uri: `${app.url}/v2/auth/callback/other` })).status, 400, 'another redirect');
    const good = await code();
    const issued = await json(await grant(good), 200);
    assert.match(issued.access_token, /^dev-/);
    assert.equal(issued.token_type, 'Bearer');
    assert.equal((await grant(good)).status, 400, 'a code serves once');
    const refreshed = await json(await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token }), 200);
    assert.notEqual(refreshed.access_token, issued.access_token);
    assert.equal((await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token })).status, 400, 'rotated');
    assert.equal((await token({ grant_type: 'authorization_code', client_id: 'someone-else' })).status, 401);
  });
});

describe('the development OAuth provider’s routes are the control plane’s operations', () => {
  let app: InProcessApp;
  before(async () => {
    app = await areaApp('control-plane', { env: { AGENTPLANE_DEV_OAUTH: 'on' } });
  });
  after(() => app.close());

  it('reads its forms as the contract says: a form only, each field once, no longer than documented', async () => {
    const asJson = await app.fetch('/dev/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', client_id: 'agentplane-dev', refresh_token: 'x' }),
    });
    assert.match((await json(asJson, 415)).detail, /application\/x-www-form-urlencoded/);
    const twice = await app.fetch('/dev/oauth/authorize', { method: 'POST', body: new URLSearchParams('decision=allow&decision=deny') });
    assert.deepEqual((await json(twice, 422)).detail[0].loc, ['body', 'decision'], 'a field given twice');
    const long = await app.fetch(`/dev/oauth/authorize?state=${'s'.repeat(513)}`);
    assert.equal(long.status, 422, 'a state longer than documented');
    const page = await app.fetch('/dev/oauth/authorize?response_type=token');
    assert.equal(page.status, 400);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
  });

  it('is described in the control plane’s served document', async () => {
    const served = await (await app.fetch('/spec/control-plane.openapi.yaml')).text();
    for (const operation of ['devAuthorize', 'devConsent', 'devToken'])
      assert.ok(served.includes(`operationId: ${operation}\n`), `${operation} is in the served document`);
  });
});

describe('the development OAuth provider, off', () => {
  it('answers nothing, and an unconfigured provider is not found', async () => {
    const app = await areaApp('control-plane', { env: { AGENTPLANE_DEV_OAUTH: 'off' } });
    try {
      assert.equal((await app.fetch('/dev/oauth/authorize?response_type=code')).status, 404);
      const answered = await app.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'github', scopes: [], user_id: 'alice' } });
      assert.deepEqual(await json(answered, 404), { detail: 'Provider ID github not found.' });
    } finally {
      await app.close();
    }
  });
});

describe('AGENTPLANE_DEV_OAUTH’s default', () => {
  const devProvider = (argv: string[], env: Record<string, string> = {}) => loadConfig(argv, { ...env }, '/').agentAuth.devProvider;
  it('is on for a server on loopback, on the embedded store, without agent-server auth (npm start, agentplane dev)', () => {
    assert.equal(devProvider([]), true);
    assert.equal(devProvider(['--host', '::1']), true);
  });
  it('is off where others reach the server, unless turned on', () => {
    assert.equal(devProvider(['--host', '0.0.0.0']), false);
    assert.equal(devProvider([], { DATABASE_URL: 'postgres://db/x' }), false);
    assert.equal(devProvider([], { AGENTPLANE_AGENT_SERVER_AUTH: '1' }), false);
    assert.equal(devProvider(['--host', '0.0.0.0'], { AGENTPLANE_DEV_OAUTH: 'on' }), true);
    assert.equal(devProvider([], { AGENTPLANE_DEV_OAUTH: 'off' }), false);
  });
});
