// A port for a server that binds it seconds later must not be one the kernel may meanwhile give
// an outgoing connection as its local end (the CI failure: the upstream dev server's port taken
// while it compiled, EADDRINUSE).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { FETCH_BLOCKED_PORTS, freePort, parsePortRange } from '../../../../src/adapters/deploy-targets/shared/freePort.ts';

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

describe('freePort', () => {
  it('reads the kernel range as the file holds it, and nothing else', () => {
    assert.deepEqual(parsePortRange('32768\t60999\n'), { low: 32768, high: 60999 });
    assert.equal(parsePortRange(''), null);
    assert.equal(parsePortRange('60999 32768'), null);
    assert.equal(parsePortRange('a b'), null);
  });

  it(
    'hands out ports below the ephemeral range, distinct while held, each one bindable',
    { skip: !fs.existsSync(RANGE_FILE) && 'no ephemeral range file here' },
    async () => {
      const range = parsePortRange(fs.readFileSync(RANGE_FILE, 'utf8'));
      assert.ok(range);
      const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
      assert.equal(new Set(ports).size, ports.length, 'no port twice');
      for (const port of ports) assert.ok(port >= 10_000 && port < range.low, `${port} lies outside ${range.low}-${range.high}`);
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  );

  it('never hands out a port something is listening on', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      for (let i = 0; i < 20; i += 1) assert.notEqual(await freePort(), port);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it(
    'never hands out a port fetch refuses to connect to (CI: a container on 10080, "bad port")',
    { skip: !fs.existsSync(RANGE_FILE) && 'no ephemeral range file here' },
    async () => {
      // the draw offers 10080 first, then a port fetch reaches
      const offers = [10_080, 10_080, 10_081];
      const port = await freePort(() => offers.shift() ?? 10_082);
      assert.ok(!FETCH_BLOCKED_PORTS.has(port), `${port} handed out`);
    },
  );

  it("holds the ports node's own fetch refuses from 1024 up, and not their neighbours", async () => {
    const refused = async (port: number) => {
      try {
        await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5_000) });
        return false;
      } catch (err) {
        return ((err as Error).cause as Error | undefined)?.message === 'bad port';
      }
    };
    for (const port of FETCH_BLOCKED_PORTS) assert.ok(await refused(port), `fetch connects to ${port}`);
    for (const port of [1718, 1721, 6001, 10_079, 10_081, 32_767]) assert.equal(await refused(port), false, `fetch refuses ${port}`);
  });
});
