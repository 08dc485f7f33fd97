// The round-robin proxy is sent to its container as the text of its function (`node -e`), where
// nothing of the module that held it exists. Compiled by esbuild (tsx, the tests' compiled
// copies) that text called esbuild's `__require` helper for its `require`, and the proxy of every
// deployment with several replicas exited at start (seen in the container suite, compiled).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { proxyProgram } from '../../../../src/adapters/deploy-targets/container/roundRobinProxy.ts';
import { freePort } from '../../../../scripts/freePort.ts';

const upstream = http.createServer((req, res) => res.end(`upstream saw ${req.url}`));
after(() => upstream.close());

test('the proxy program runs alone in a plain node and passes a request to a replica', async () => {
  await once(upstream.listen(0, '127.0.0.1'), 'listening');
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', proxyProgram(port, [`127.0.0.1:${(upstream.address() as AddressInfo).port}`])], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (d) => (errors += d));
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      assert.equal(child.exitCode, null, `the proxy exited: ${errors}`);
      const reply = await fetch(`http://127.0.0.1:${port}/ok`).catch(() => null);
      if (reply) {
        assert.equal(await reply.text(), 'upstream saw /ok');
        break;
      }
      assert.ok(Date.now() < deadline, 'the proxy never listened');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    child.kill('SIGKILL');
  }
});
