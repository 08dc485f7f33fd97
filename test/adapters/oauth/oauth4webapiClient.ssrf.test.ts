// A tenant chooses every URL the auth service fetches (a provider's token and revocation URLs,
// an MCP server, the metadata and issuer it names), so each is held to the webhooks' address
// rule: loopback, link-local (cloud metadata) and private addresses are refused unless
// AGENTPLANE_AUTH_ALLOWED_NETWORKS lists them, by literal address or by what a name resolves
// to, before any connection; redirects are never followed. A loopback listener counts the
// connections that reach it: none may.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth4WebApiClient } from '../../../src/adapters/oauth/oauth4webapiClient.ts';
import { OAuthFailure } from '../../../src/domain/ports/oauthClient.ts';

interface Listener {
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

async function listen(host: string, handler: http.RequestListener = (_req, res) => res.end('{}')): Promise<Listener> {
  const server = http.createServer(handler);
  let count = 0;
  server.on('connection', () => count++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const endpoints = (tokenUrl: string) => ({ tokenUrl, revocationUrl: tokenUrl, clientId: 'c', clientSecret: 's', authMethod: 'client_secret_post' as const });
const refused = (pattern: RegExp) => (error: unknown) => error instanceof OAuthFailure && pattern.test(error.message);

describe('agent auth: outbound requests only reach allowed addresses', () => {
  let victim: Listener;
  let allowed: Listener;
  const strict = new OAuth4WebApiClient({ allowHttp: true, allowedNetworks: [] });
  // 127.0.0.2 stands for an allowed (operator-listed) server; 127.0.0.1 stays refused
  const opened = new OAuth4WebApiClient({ allowHttp: true, allowedNetworks: ['127.0.0.2/32'] });

  before(async () => {
    victim = await listen('127.0.0.1');
    allowed = await listen('127.0.0.2', (req, res) => {
      const target = `http://127.0.0.1:${victim.port}`;
      if (req.url?.startsWith('/redirect')) return res.writeHead(302, { location: `${target}/token` }).end();
      if (req.url === '/mcp') return res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${target}/meta"` }).end();
      const issuer = req.url?.includes('metadata-host') ? 'http://169.254.169.254' : target;
      if (req.url?.startsWith('/.well-known/oauth-protected-resource')) return res.end(JSON.stringify({ authorization_servers: [issuer] }));
      res.writeHead(404).end();
    });
  });
  after(async () => {
    await victim.close();
    await allowed.close();
  });

  it('refuses a token URL at loopback, at the metadata address and at a name resolving to loopback, connecting nowhere', async () => {
    const loopback = `http://127.0.0.1:${victim.port}/token`;
    await assert.rejects(
      strict.exchangeCode(endpoints(loopback), 'code', 'http://x/cb', null),
      refused(/127\.0\.0\.1 is loopback.*AGENTPLANE_AUTH_ALLOWED_NETWORKS/),
    );
    await assert.rejects(strict.refresh(endpoints(loopback), 'r'), refused(/loopback/));
    await assert.rejects(strict.revoke(endpoints(loopback), 't', 'access_token'), refused(/loopback/));
    await assert.rejects(strict.refresh(endpoints(`http://localhost:${victim.port}/token`), 'r'), refused(/localhost: address .* is loopback/));
    await assert.rejects(
      strict.refresh(endpoints('http://169.254.169.254/latest/meta-data'), 'r'),
      refused(/169\.254\.169\.254 is link-local \(cloud metadata/),
    );
    await assert.rejects(strict.register(`http://[::ffff:127.0.0.1]:${victim.port}/reg`, 'http://x/cb', 'n', 'none'), refused(/loopback/));
    assert.equal(victim.connections(), 0);
  });

  it('refuses MCP discovery at a loopback URL or name, connecting nowhere', async () => {
    await assert.rejects(strict.discoverMcp(`http://127.0.0.1:${victim.port}/mcp`), refused(/127\.0\.0\.1 is loopback/));
    await assert.rejects(strict.discoverMcp(`http://localhost:${victim.port}/mcp`), refused(/localhost: address .* is loopback/));
    assert.equal(victim.connections(), 0);
  });

  it('refuses an issuer or metadata pointer at loopback or the metadata address, named by an allowed server', async () => {
    const before = allowed.connections();
    // the 401 points at loopback metadata: refused, no fallback to the well-known URL either
    await assert.rejects(opened.discoverMcp(`http://127.0.0.2:${allowed.port}/mcp`), refused(/127\.0\.0\.1 is loopback/));
    await assert.rejects(
      opened.discoverMcp(`http://127.0.0.2:${allowed.port}/issuer-loopback`),
      refused(/no authorization server metadata.*127\.0\.0\.1 is loopback/),
    );
    await assert.rejects(opened.discoverMcp(`http://127.0.0.2:${allowed.port}/metadata-host`), refused(/169\.254\.169\.254 is link-local/));
    assert.ok(allowed.connections() > before, 'the allowed server was reached');
    assert.equal(victim.connections(), 0);
  });

  it('does not follow a redirect from an allowed server to loopback', async () => {
    await assert.rejects(opened.refresh(endpoints(`http://127.0.0.2:${allowed.port}/redirect`), 'r'), OAuthFailure);
    await assert.rejects(opened.register(`http://127.0.0.2:${allowed.port}/redirect`, 'http://x/cb', 'n', 'none'), OAuthFailure);
    assert.equal(victim.connections(), 0);
  });

  it('reaches loopback when the operator allows it, and names a wrong allowance', async () => {
    const permissive = new OAuth4WebApiClient({ allowHttp: true, allowedNetworks: ['127.0.0.1/32'] });
    await assert.rejects(permissive.refresh(endpoints(`http://127.0.0.1:${victim.port}/token`), 'r'), OAuthFailure);
    assert.equal(victim.connections(), 1);
    assert.throws(() => new OAuth4WebApiClient({ allowHttp: true, allowedNetworks: ['10.0.0.0/33'] }), /AGENTPLANE_AUTH_ALLOWED_NETWORKS: "10.0.0.0\/33"/);
  });
});
