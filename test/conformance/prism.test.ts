// The integration flow — each resource created from the spec's examples, then every link
// followed with its edge variants — run once through the Prism validation proxy
// (`prism proxy <spec> <server> --errors`), which checks requests and answers against the
// spec independently of this suite. Any violation it reports fails the test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, startTestServer, type TestServer } from '../support/server.ts';
import { operations } from './lib/contract.ts';
import { roots, walkRoots } from './lib/stateful.ts';

const PRISM = path.join(ROOT, 'node_modules/.bin/prism');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface Proxy {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function startPrism(spec: string, upstream: string): Promise<Proxy> {
  const port = await freePort();
  const child = spawn(PRISM, ['proxy', path.join(ROOT, spec), upstream, '--errors', '-p', String(port), '-h', '127.0.0.1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${out}`)), 60_000);
    const check = () => {
      if (out.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${out}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child, output: () => out };
}

describe('integration flow through the Prism validation proxy', () => {
  let server: TestServer;
  const proxies: Proxy[] = [];
  before(async () => {
    server = await startTestServer({ env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
  });
  after(async () => {
    for (const p of proxies) {
      p.child.kill('SIGTERM');
      await new Promise((resolve) => (p.child.exitCode === null ? p.child.once('exit', resolve) : resolve(null)));
    }
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
      await walkRoots({ url: proxy.url, key: server.key, mode: 'real' }, mine);
      assert.doesNotMatch(proxy.output(), /violation/i, 'prism logged a violation');
      // and the proxy is really checking: a request the spec forbids is stopped with its report
      const forbidden = key === 'control-plane' ? '/v2/deployments?limit=0' : '/threads/not-a-uuid';
      const res = await fetch(proxy.url + forbidden, { headers: { 'X-Api-Key': server.key } });
      assert.equal(res.status, 422);
      assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    });
  }
});
