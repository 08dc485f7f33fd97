// The integration flow — each resource created from the spec's examples, then every link
// followed with its edge variants — run once through the Prism validation proxy
// (`prism proxy <spec> <server> --errors`), which checks requests and answers against the
// spec independently of this suite. Any violation it reports fails the test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startPrism, type PrismProxy } from '../support/prism.ts';
import { operations } from '../conformance/lib/contract.ts';
import { roots, walkRoots } from '../conformance/lib/stateful.ts';

describe('integration flow through the Prism validation proxy', () => {
  let server: TestServer;
  const proxies = new Map<string, Promise<PrismProxy>>();
  /** One proxy per spec, shared by the cases (a Prism start reads the whole spec: seconds of CPU). */
  const proxyFor = (spec: string) => {
    if (!proxies.has(spec)) proxies.set(spec, startPrism(spec, server.url));
    return proxies.get(spec)!;
  };
  before(async () => {
    server = await startTestServer({ exampleGraphs: 'all', env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
  });
  after(async () => {
    // a proxy that did not start has failed its case already
    for (const p of proxies.values()) await p.then((proxy) => proxy.stop()).catch(() => {});
    await server?.close();
  });

  for (const [key, spec] of [
    ['control-plane', 'spec/control-plane.openapi.yaml'],
    ['agent-server', 'spec/agent-server.openapi.yaml'],
  ] as const) {
    it(`${key}: Prism reports no violation`, async () => {
      const proxy = await proxyFor(spec);
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

  // The walk above once failed under load with "fetch failed" (other side closed): Prism
  // closed a pooled connection as idle after Node's 5 s while the loaded test process, whose
  // pool timer fired late, sent its next request on it. Prism now keeps idle connections
  // open as long as agentplane does (test/support/prismKeepAlive.cjs).
  it("Prism keeps an idle keep-alive connection open past Node's 5 s default", { timeout: 120_000 }, async () => {
    const proxy = await proxyFor('spec/agent-server.openapi.yaml');
    const { port } = new URL(proxy.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk) => (received += chunk));
    const answers = async (count: number) => {
      while ((received.match(/HTTP\/1\.1 200 /g) ?? []).length < count) await once(socket, 'data');
    };
    socket.write('GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await answers(1);
    assert.match(received, /\r\nKeep-Alive: timeout=65\r\n/i);
    // idle past the 5 s (and the up to 1 s Node adds when it checks): closed, the socket ends
    const ended = once(socket, 'end').then(() => 'closed');
    const idle = await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 7_500, 'open'))]);
    assert.equal(idle, 'open', 'Prism closed the idle connection');
    socket.write('GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await answers(2);
    socket.destroy();
  });
});
