// Where the absolute URLs the server hands out point when AGENTPLANE_PUBLIC_URL is unset:
// the request's Host header; Forwarded / X-Forwarded-Proto / X-Forwarded-Host only with
// AGENTPLANE_TRUST_PROXY (any client can send them), never over a configured public URL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';

const project = { graphs: { echo: './examples/graphs/echo.ts:echo' } };

/** The card's url for a request with these headers (the Host among them, as a client sends it). */
async function cardUrl(server: InProcessApp, pathname: string, headers: Record<string, string>): Promise<string> {
  const res = await server.fetch(pathname, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${res.status}: ${body}`);
  return (JSON.parse(body) as { url: string }).url;
}

const forwardedHeaders = { host: 'internal:8123', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' };

describe('agent card URLs without AGENTPLANE_PUBLIC_URL', () => {
  let plain: InProcessApp;
  let proxied: InProcessApp;
  before(async () => {
    plain = await areaApp('a2a', { project, dataDir: null });
    proxied = await areaApp('a2a', { project, dataDir: null, env: { AGENTPLANE_TRUST_PROXY: '1' } });
  });
  after(async () => {
    await plain.close();
    await proxied.close();
  });

  it('follow the Host header, and ignore X-Forwarded-* and Forwarded from an untrusted client', async () => {
    assert.equal(await cardUrl(plain, '/.well-known/agent-card.json', { host: 'attacker.example' }), 'http://attacker.example/a2a/echo');
    assert.equal(await cardUrl(plain, '/.well-known/agent-card.json', forwardedHeaders), 'http://internal:8123/a2a/echo');
    assert.equal(
      await cardUrl(plain, '/.well-known/agent-card.json?assistant_id=echo', { host: 'internal:8123', forwarded: 'proto=https;host=evil.example' }),
      'http://internal:8123/a2a/echo',
    );
  });

  it('with AGENTPLANE_TRUST_PROXY take scheme and host from X-Forwarded-* or Forwarded (first hop)', async () => {
    assert.equal(await cardUrl(proxied, '/.well-known/agent-card.json', forwardedHeaders), 'https://agents.example.com/a2a/echo');
    assert.equal(
      await cardUrl(proxied, '/.well-known/agent-card.json?assistant_id=echo', {
        host: 'internal',
        forwarded: 'for=10.0.0.1;proto=https;host="agents.example.com:8443", for=10.0.0.2;host=inner',
      }),
      'https://agents.example.com:8443/a2a/echo',
    );
    // a proxy that sends only the scheme keeps the Host; a malformed forwarded host is ignored
    assert.equal(
      await cardUrl(proxied, '/.well-known/agent-card.json', { host: 'agents.example.com', 'x-forwarded-proto': 'https' }),
      'https://agents.example.com/a2a/echo',
    );
    assert.equal(
      await cardUrl(proxied, '/.well-known/agent-card.json', { host: 'agents.example.com', 'x-forwarded-host': 'evil.example/path?' }),
      'http://agents.example.com/a2a/echo',
    );
  });

  it('a configured AGENTPLANE_PUBLIC_URL wins over every header', async () => {
    const fixed = await areaApp('a2a', { project, dataDir: null, env: { AGENTPLANE_PUBLIC_URL: 'https://public.example.org', AGENTPLANE_TRUST_PROXY: '1' } });
    try {
      assert.equal(await cardUrl(fixed, '/.well-known/agent-card.json', forwardedHeaders), 'https://public.example.org/a2a/echo');
    } finally {
      await fixed.close();
    }
  });
});
