// A child that reports its start has failed but lives on (upstream's dev server: its watcher
// stays up after the server found its port taken) is given up at once, with its output, not
// probed until the timeout (the CI run that waited 120 s on such a child).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, startChild } from '../../scripts/bench/proc.ts';

test('startChild stops probing a live child whose output says its start failed', async () => {
  const port = await freePort();
  const started = Date.now();
  await assert.rejects(
    startChild({
      name: 'stuck',
      command: process.execPath,
      args: ['-e', "console.error('Error: listen EADDRINUSE: address already in use'); setInterval(() => {}, 1000)"],
      cwd: process.cwd(),
      port,
      probePath: '/ok',
      timeoutMs: 60_000,
      failedWhen: /EADDRINUSE/,
    }),
    (err: Error) => /did not answer 200/.test(err.message) && /EADDRINUSE/.test(err.message),
  );
  // well inside the 60-s timeout it would otherwise have waited for
  assert.ok(Date.now() - started < 30_000);
});
