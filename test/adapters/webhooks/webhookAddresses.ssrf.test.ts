// Issue 28, item 4: a run's webhook cannot reach into the server's own network. A receiver
// listens on loopback; every way of naming it (0.0.0.0, 0, IPv4-mapped IPv6, a host name that
// resolves to it) is refused by default and with disable_loopback, because the address checked
// is the one connected to; an allowed receiver that redirects to a refused one is not followed.
// The address rule itself is checked over every non-public range.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns/promises';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { areaApp } from '../../support/area.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import { addressCheck } from '../../../src/adapters/webhooks/webhookAddresses.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });

/** A listener counting the requests it gets; `answer` decides the reply. */
async function listener(host: string, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { hits, port: (server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A server whose log lines a test can wait for. */
async function serverWithLog(webhooks: Record<string, unknown>) {
  const lines: Record<string, any>[] = [];
  const waiters: (() => void)[] = [];
  const log = createLogger('info', {}, (line) => {
    lines.push(JSON.parse(line));
    for (const wake of waiters.splice(0)) wake();
  });
  const server = await areaApp('agent-server', { project: { graphs: testProject.graphs, webhooks }, dataDir: null, log });
  /** Resolves with the webhook line for this run once delivery has ended one way or another. */
  const outcome = async (runId: string, timeoutMs = 30_000): Promise<Record<string, any>> => {
    const deadline = Date.now() + timeoutMs;
    const ended = /^webhook (not sent|delivered|gave up|not delivered)/;
    for (;;) {
      const line = lines.find((l) => l.run_id === runId && ended.test(l.msg));
      if (line) return line;
      if (Date.now() > deadline)
        throw new Error(
          `no webhook outcome for run ${runId}:\n${lines
            .filter((l) => l.run_id === runId)
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 500).unref();
      });
    }
  };
  /** Runs echo with this webhook and waits for what became of the delivery. */
  const runWith = async (webhook: string) => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    const res = await server.api(`/threads/${thread.thread_id}/runs/wait`, { method: 'POST', json: { assistant_id: 'echo', input: say('hook'), webhook } });
    assert.equal(res.status, 200, await res.clone().text());
    const runId = /\/runs\/([0-9a-f-]{36})/.exec(res.headers.get('content-location') ?? '')![1];
    return outcome(runId);
  };
  return { server, runWith };
}

describe('webhooks never reach non-public addresses unless allowed', () => {
  let receiver: Awaited<ReturnType<typeof listener>>;
  let redirector: Awaited<ReturnType<typeof listener>>;
  let byDefault: Awaited<ReturnType<typeof serverWithLog>>;
  let noLoopback: Awaited<ReturnType<typeof serverWithLog>>;
  let bypasses: string[];

  before(async () => {
    receiver = await listener('127.0.0.1', (_req, res) => res.writeHead(200).end());
    // on 127.0.0.2, which the operator allows; it sends every webhook on to the refused receiver
    redirector = await listener('127.0.0.2', (_req, res) => res.writeHead(307, { Location: `http://127.0.0.1:${receiver.port}/redirected` }).end());
    byDefault = await serverWithLog({ retry_base_ms: 10, max_attempts: 2, url: { allowed_networks: ['127.0.0.2/32'] } });
    noLoopback = await serverWithLog({ retry_base_ms: 10, max_attempts: 2, url: { disable_loopback: true } });
    const P = receiver.port;
    bypasses = [
      `http://127.0.0.1:${P}/plain`,
      `http://0.0.0.0:${P}/zeros`,
      `http://0:${P}/zero`,
      `http://[::ffff:127.0.0.1]:${P}/mapped`,
      `http://[::ffff:7f00:1]:${P}/mapped-hex`,
      `http://localhost:${P}/localhost`,
    ];
    // a name that is not loopback as text but resolves to it (what DNS rebinding does), where this machine has one
    const hostname = os.hostname();
    const resolved = await dns.lookup(hostname).catch(() => null);
    if (resolved && /^127\./.test(resolved.address) && !/localhost/i.test(hostname)) bypasses.push(`http://${hostname}:${P}/resolves-to-loopback`);
  });
  after(async () => {
    await byDefault?.server.close();
    await noLoopback?.server.close();
    await receiver?.close();
    await redirector?.close();
  });

  it('refuses every way of naming a loopback receiver, by default and with disable_loopback; nothing reaches it', async () => {
    for (const { runWith } of [byDefault, noLoopback]) {
      for (const url of bypasses) {
        const line = await runWith(url);
        assert.equal(line.msg, 'webhook not sent', `${url}: ${JSON.stringify(line)}`);
        assert.match(line.reason, /loopback|unspecified/, url);
      }
    }
    assert.deepEqual(receiver.hits, []);
  });

  it('does not follow an allowed receiver’s redirect to a refused one', async () => {
    const line = await byDefault.runWith(`http://127.0.0.2:${redirector.port}/hook`);
    assert.equal(line.msg, 'webhook not delivered: the receiver redirected, and redirects are not followed');
    assert.deepEqual(redirector.hits, ['/hook'], 'the allowed receiver was called, once');
    assert.deepEqual(receiver.hits, []);
  });

  it('delivers to a name whose address the operator allows (the look-up keeps only allowed addresses)', async () => {
    const allowedReceiver = await listener('127.0.0.1', (_req, res) => res.writeHead(200).end());
    const allowing = await serverWithLog({ retry_base_ms: 10, max_attempts: 2, url: { allowed_networks: ['127.0.0.1/32'] } });
    try {
      // localhost may also resolve to ::1, which is not allowed: the connection goes to 127.0.0.1
      const line = await allowing.runWith(`http://localhost:${allowedReceiver.port}/by-name`);
      assert.equal(line.msg, 'webhook delivered', JSON.stringify(line));
      assert.deepEqual(allowedReceiver.hits, ['/by-name']);
    } finally {
      await allowing.server.close();
      await allowedReceiver.close();
    }
  });

  it('classifies addresses: private, link-local (metadata), unspecified, mapped and IPv6 ranges refused; public allowed; allowed_networks opens one', () => {
    const check = addressCheck();
    const refused = [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '127.0.0.1',
      '0.0.0.0',
      '100.64.0.1',
      '::',
      '::1',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '224.0.0.1',
      '255.255.255.255',
    ];
    for (const address of refused) assert.ok(check(address), `${address} should be refused`);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1', '::ffff:8.8.8.8']) assert.equal(check(address), null, address);
    const opened = addressCheck({ allowed_networks: ['10.0.0.0/8', 'fd00::/8'] });
    assert.equal(opened('10.9.8.7'), null);
    assert.equal(opened('fd00::5'), null);
    assert.ok(opened('192.168.0.1'));
    // disable_loopback keeps loopback refused even when a range allows it
    assert.match(addressCheck({ allowed_networks: ['127.0.0.0/8'], disable_loopback: true })('127.0.0.1') ?? '', /disable_loopback/);
    assert.throws(() => addressCheck({ allowed_networks: ['10.0.0.0/33'] }), /webhooks\.url\.allowed_networks: "10\.0\.0\.0\/33"/);
    for (const bad of ['10.0.0.0/', 'example.com', '10.0.0.0/8/8', '::1/129'])
      assert.throws(() => addressCheck({ allowed_networks: [bad] }), /is not an IP address or a CIDR range/, bad);
  });
});
