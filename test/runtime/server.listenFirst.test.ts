// The port listens before the project's graphs load (runtime/deferredHandlers.ts): a request
// sent meanwhile, the health check too, waits for them and is answered as it would have been
// later. Sent the moment the port accepts a connection (long
// before the start line, which is logged once the graphs are loaded), a search for a shipped
// graph's assistant must find it and a run of it must finish: a 404 or an empty list would
// mean the lazy load raced the request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { ROOT } from '../support/server.ts';
import { logLine } from '../support/logLines.ts';
import { tempDir } from '../support/tempDirs.ts';
import { freePort } from '../../scripts/freePort.ts';
import { cliEntry } from '../support/childImports.ts';

const KEY = 'listen-first-key';

/**
 * Resolves once a TCP connection to the port is accepted (tried every 10 ms: every 2 ms cost a
 * fifth of a core for the seconds a start takes; the graphs load for far longer than 10 ms, and
 * a request sent after they did fails the tests rather than passing them).
 */
async function accepted(port: number, gone: () => boolean): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until && !gone();) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the server never accepted a connection');
}

test('a request for a shipped graph sent the moment the port listens waits for the graphs and finds them (no 404, no empty list)', async () => {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...cliEntry(), 'serve', '--memory', '--port', String(port), '--host', '127.0.0.1', '--config', path.join(ROOT, 'agentplane.json')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
        AGENTPLANE_SCHEMA_WARMUP: '0',
        // killed -9 at the end, maybe in its run path warm-up: what it made in its TMPDIR goes with this process's
        TMPDIR: tempDir('agentplane-child-tmp-'),
        AGENTPLANE_API_KEYS: `${KEY}:6f1d3c1e-8a55-4f51-9a59-3c7b1f0f2a11`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', () => resolve((exited = true))));
  const started = () => logLine(out, 'agentplane listening') !== undefined;
  try {
    await accepted(port, () => exited);
    const url = `http://127.0.0.1:${port}`;
    const headers = { 'content-type': 'application/json', 'x-api-key': KEY };
    // the port accepted before the graphs had loaded (the start line is logged once they have)
    assert.equal(started(), false, `the port listened only once the graphs had loaded:\n${out}`);
    const [ok, search, run] = await Promise.all([
      // the health check waits as every request does: a 200 says the server serves (readiness)
      fetch(`${url}/ok`),
      fetch(`${url}/assistants/search`, { method: 'POST', headers, body: JSON.stringify({ graph_id: 'echo' }) }),
      fetch(`${url}/runs/wait`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'early' }] } }),
      }),
    ]);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { ok: true });
    assert.equal(search.status, 200, await search.clone().text());
    const assistants = (await search.json()) as { graph_id: string; assistant_id: string }[];
    assert.deepEqual(
      assistants.map((a) => a.graph_id),
      ['echo'],
      'the shipped graph’s system assistant is found',
    );
    assert.equal(run.status, 200, await run.clone().text());
    const state = (await run.json()) as { messages: { content: unknown }[] };
    assert.ok(JSON.stringify(state.messages).includes('early'), JSON.stringify(state));
  } finally {
    child.kill('SIGKILL');
    await exit;
  }
});

test('a request waiting for graphs that fail to load is told the server could not start (503 naming the cause), and the failure is not logged per request', async () => {
  const port = await freePort();
  const project = tempDir('listen-first-broken-');
  writeFileSync(path.join(project, 'agentplane.json'), JSON.stringify({ graphs: { missing: './nowhere.mjs:graph' } }));
  const child = spawn(
    process.execPath,
    [...cliEntry(), 'serve', '--memory', '--port', String(port), '--host', '127.0.0.1', '--config', path.join(project, 'agentplane.json')],
    {
      cwd: project,
      env: { ...process.env, LOG_LEVEL: 'info', DATABASE_URL: '', AGENTPLANE_SCHEMA_WARMUP: '0', TMPDIR: tempDir('agentplane-child-tmp-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => ((exited = true), resolve(code))));
  try {
    await accepted(port, () => exited);
    // sent long before the graphs fail to load (a start takes seconds): it waits, and is answered before the port closes
    const ok = await fetch(`http://127.0.0.1:${port}/ok`);
    assert.equal(ok.status, 503, out);
    const body = (await ok.json()) as { detail: string };
    assert.match(body.detail, /^The server could not start: graph "missing": cannot import/);
    assert.equal(await exit, 1, out);
    assert.doesNotMatch(out, /unhandled error/, 'a waiting request logs no unhandled error');
    assert.match(out, /graph "missing": cannot import/);
  } finally {
    child.kill('SIGKILL');
    await exit;
  }
});
