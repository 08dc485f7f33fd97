// A server killed (-9) in the middle of an OAuth code exchange: the flow it was exchanging ends
// `failed` at the restart, so `wait` says so at once instead of `timeout` until the flow expires
// ten minutes later. The provider's token endpoint here holds every request (the exchange is in
// flight at the kill), as a real server's can while it is slow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { spawnServer, tempDir, type ChildServer } from '../../../support/server.ts';

test('a flow whose code exchange was cut by kill -9 is failed at the restart, and wait says failed', { timeout: 180_000 }, async () => {
  let exchanging: () => void = () => undefined;
  const inFlight = new Promise<void>((resolve) => (exchanging = resolve));
  const held: http.ServerResponse[] = [];
  const idp = http.createServer((req, res) => {
    req.resume();
    if (req.method === 'POST' && req.url?.startsWith('/token')) {
      held.push(res); // never answered
      exchanging();
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const dataDir = tempDir();
  const key = `key-${randomUUID()}`;
  const env = {
    AGENTPLANE_API_KEYS: `${key}:${randomUUID()}`,
    AGENTPLANE_TOKEN_KEY: randomBytes(32).toString('hex'),
    AGENTPLANE_AUTH_ALLOW_HTTP: '1',
    AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32',
  };
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  let server: ChildServer | undefined = await spawnServer(['--data', dataDir], env);
  try {
    const provider = { provider_id: 'idp', name: 'IdP', client_id: 'c', client_secret: 's', auth_url: `${issuer}/auth`, token_url: `${issuer}/token` };
    assert.equal((await fetch(`${server.url}/v2/auth/providers`, { method: 'POST', headers, body: JSON.stringify(provider) })).status, 200);
    const started = (await (
      await fetch(`${server.url}/v2/auth/authenticate`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ provider: 'idp', scopes: ['read'], user_id: 'kim' }),
      })
    ).json()) as { url: string; auth_id: string };
    const state = new URL(started.url).searchParams.get('state')!;
    // the provider sends the user back with a code: the server takes the flow and calls the token endpoint
    void fetch(`${server.url}/v2/auth/callback/idp?code=abc&state=${encodeURIComponent(state)}`).catch(() => undefined);
    await inFlight;
    await server.kill('SIGKILL');
    server = await spawnServer(['--data', dataDir], env);
    const began = Date.now();
    const waited = (await (await fetch(`${server.url}/v2/auth/wait/${started.auth_id}?timeout=20`, { headers })).json()) as { status: string; error?: string };
    assert.equal(waited.status, 'failed', JSON.stringify(waited));
    assert.match(waited.error ?? '', /cut off/);
    assert.ok(Date.now() - began < 5_000, `wait answered after ${Date.now() - began} ms`);
    // the secret and the code are in no line the server wrote
    assert.equal(server.output().includes('abc&') || server.output().includes('"s"'), false);
  } finally {
    await server?.kill('SIGKILL');
    for (const res of held) res.destroy();
    idp.closeAllConnections();
    await new Promise((resolve) => idp.close(resolve));
  }
});
