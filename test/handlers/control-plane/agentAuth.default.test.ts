// Agent auth out of the box (issue 68): on the embedded default, with no settings, the server
// makes its token key in the data directory (0600) as it makes its API key, so authenticate
// works and the shipped `connected` graph reaches its consent step with the providers the
// printed key registers (test/sdk/auth.graph.test.ts: the graph calls its server's port); a
// restart reads the same key. Whatever the source of the API keys (issue 89): a server given
// the operator's keys in AGENTPLANE_API_KEYS makes one too. Only a server without a data
// directory (in memory) or on a database makes none (agentAuth.test.ts, 501).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { inProcessApp, tempDir, type InProcessApp } from '../../support/server.ts';
import { json } from '../../control-plane/support.ts';

const GITHUB = {
  provider_id: 'github',
  name: 'GitHub',
  client_id: 'an-oauth-app',
  client_secret: 'its-secret',
  auth_url: 'https://github.com/login/oauth/authorize',
  token_url: 'https://github.com/login/oauth/access_token',
};

describe('agent auth on the embedded default, no settings', () => {
  const dataDir = tempDir();
  let server: InProcessApp;
  let key: string;
  // no AGENTPLANE_API_KEYS: the server makes its key in the data directory, as `npm start` does
  const start = () =>
    inProcessApp({ dataDir, env: { AGENTPLANE_API_KEYS: '' }, project: { graphs: { connected: './examples/graphs/connected.ts:connected' } } });
  const api = (pathname: string, init: RequestInit & { json?: unknown } = {}) =>
    server.api(pathname, { ...init, headers: { 'x-api-key': key, ...(init.headers as Record<string, string>) } });

  before(async () => {
    server = await start();
    key = (JSON.parse(fs.readFileSync(path.join(dataDir, 'api-keys.json'), 'utf8')) as { keys: { key: string }[] }).keys[0].key;
  });
  after(() => server.close());

  it('writes a 32-byte token key beside the API key, readable by its owner only', () => {
    const file = path.join(dataDir, 'token-key');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64').length, 32);
  });

  it('answers authenticate with the consent URL (not 501)', async () => {
    await json(await api('/v2/auth/providers', { method: 'POST', json: GITHUB }), 200);
    const started = await json(
      await api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'github', scopes: ['read:user'], user_id: 'alice' } }),
      200,
    );
    assert.equal(started.status, 'pending');
    assert.equal(new URL(started.url).origin + new URL(started.url).pathname, GITHUB.auth_url);
    assert.equal(new URL(started.url).searchParams.get('redirect_uri'), `${server.url}/v2/auth/callback/github`);
  });

  it('reads the same token key on the next start', async () => {
    const before = fs.readFileSync(path.join(dataDir, 'token-key'), 'utf8');
    await server.close();
    server = await start();
    assert.equal(fs.readFileSync(path.join(dataDir, 'token-key'), 'utf8'), before);
    const again = await json(
      await api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'github', scopes: ['read:user'], user_id: 'alice' } }),
      200,
    );
    assert.equal(again.status, 'pending');
  });
});

describe('agent auth with the operator’s own keys (AGENTPLANE_API_KEYS only)', () => {
  it('makes its token key in the data directory all the same: authenticate answers, not 501', async () => {
    const dataDir = tempDir();
    const server = await inProcessApp({ dataDir });
    try {
      assert.equal(fs.statSync(path.join(dataDir, 'token-key')).mode & 0o777, 0o600);
      await json(await server.api('/v2/auth/providers', { method: 'POST', json: GITHUB }), 200);
      const started = await json(await server.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'github', scopes: [], user_id: 'u' } }), 200);
      assert.equal(started.status, 'pending');
    } finally {
      await server.close();
    }
  });

  it('in memory (no data directory) it makes none and answers 501 naming the setting', async () => {
    const server = await inProcessApp({ dataDir: null });
    try {
      await json(await server.api('/v2/auth/providers', { method: 'POST', json: GITHUB }), 200);
      const answer = await json(await server.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'github', scopes: [], user_id: 'u' } }), 501);
      assert.match(answer.detail, /AGENTPLANE_TOKEN_KEY/);
    } finally {
      await server.close();
    }
  });
});
