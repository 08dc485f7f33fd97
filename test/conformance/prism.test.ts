// The integration flow — each resource created from the spec's examples, then every link
// followed with its edge variants — run once through the Prism validation proxy
// (`prism proxy <spec> <server> --errors`), which checks requests and answers against the
// spec independently of this suite. Any violation it reports fails the test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startPrism, type PrismProxy } from '../support/prism.ts';
import { operations } from './lib/contract.ts';
import { roots, walkRoots } from './lib/stateful.ts';

describe('integration flow through the Prism validation proxy', () => {
  let server: TestServer;
  const proxies: PrismProxy[] = [];
  before(async () => {
    server = await startTestServer({ env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
  });
  after(async () => {
    for (const p of proxies) await p.stop();
    await server?.close();
  });

  for (const [key, spec] of [
    ['control-plane', 'spec/control-plane.openapi.yaml'],
    ['agent-server', 'spec/agent-server.openapi.yaml'],
  ] as const) {
    it(`${key}: Prism reports no violation`, async () => {
      const proxy = await startPrism(spec, server.url);
      proxies.push(proxy);
      const mine = roots.filter((r) => operations.find((o) => o.operationId === r.operationId)?.document === key);
      assert.ok(mine.length > 0);
      await walkRoots({ url: proxy.url, key: server.key, mode: 'real', openStreamUrl: server.url }, mine);
      assert.doesNotMatch(proxy.output(), /violation/i, 'prism logged a violation');
      // and the proxy is really checking: a request the spec forbids is stopped with its report
      const forbidden = key === 'control-plane' ? '/v2/deployments?limit=0' : '/threads/not-a-uuid';
      const res = await fetch(proxy.url + forbidden, { headers: { 'X-Api-Key': server.key } });
      assert.equal(res.status, 422);
      assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    });
  }
});
