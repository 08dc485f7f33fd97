// A child that reports its start has failed but lives on (upstream's dev server: its watcher
// stays up after the server found its port taken) is given up at once, with its output, not
// probed until the timeout (the CI run that waited 120 s on such a child).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
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

// A child's output goes to a file, not through a pipe the bench reads: the load generator runs
// in the bench's process, and reading a server's access log (a line a request) cost it ~3 µs
// a request, taken from the server's share of the cores (scripts/bench/proc.ts). output() still
// gives what the child wrote, while it runs and after it has stopped.
test("startChild keeps a child's output in a file it reads when asked, not in a pipe it reads all along", async () => {
  const port = await freePort();
  const child = await startChild({
    name: 'logs',
    command: process.execPath,
    args: [
      '-e',
      `console.log('started on ${port}'); console.error('to stderr'); require('node:http').createServer((q, s) => { console.log('answered ' + q.url); s.end('ok'); }).listen(${port}, '127.0.0.1')`,
    ],
    cwd: process.cwd(),
    port,
    probePath: '/ok',
    timeoutMs: 30_000,
  });
  try {
    // Linux: where the child's stdout goes
    // a file's path; a pipe node makes reads as `socket:[…]`
    assert.match(fs.readlinkSync(`/proc/${child.pid}/fd/1`), /^\//);
    assert.match(child.output(), /started on \d+/);
    assert.match(child.output(), /to stderr/);
    assert.match(child.output(), /answered \/ok/);
  } finally {
    await child.stop();
  }
  assert.match(child.output(), /answered \/ok/, 'kept after the stop');
});
