// A port for a server that binds it seconds later must not be one the kernel may meanwhile give
// an outgoing connection as its local end (the CI failure: the upstream dev server's port taken
// while it compiled, EADDRINUSE).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { freePort, parsePortRange } from '../../../../src/adapters/deploy-targets/shared/freePort.ts';

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
});
