// The CLI explains itself: --help, <command> --help (every flag with its environment
// variable), --version; a bad flag, a stray argument or an unknown command exits non-zero
// naming it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/server.ts';
import { until } from '../support/until.ts';
import { logLine } from '../support/logLines.ts';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), ...args], { encoding: 'utf8', env: { ...process.env, PORT: '' } });

describe('agentplane CLI', () => {
  it('--help lists the commands, the environment and the exit codes', () => {
    const { status, stdout } = cli('--help');
    assert.equal(status, 0);
    assert.match(stdout, /Usage: agentplane \[options\] \[command\]/);
    for (const command of ['serve', 'dev', 'mock']) assert.match(stdout, new RegExp(`\\n  ${command} `));
    assert.match(stdout, /LOG_LEVEL/);
    assert.match(stdout, /Exit codes/);
  });

  it('serve --help names every flag and the environment variable behind it', () => {
    const { status, stdout } = cli('serve', '--help');
    assert.equal(status, 0);
    for (const [flag, env] of [
      ['--port', 'PORT'],
      ['--host', 'HOST'],
      ['--data', 'DATA_DIR'],
      ['--memory', 'AGENTPLANE_MEMORY'],
      ['--config', 'AGENTPLANE_CONFIG'],
      ['--mock', 'AGENTPLANE_MOCK'],
    ]) {
      assert.match(stdout, new RegExp(`${flag}[^\\n]*(\\n[^-][^\\n]*)*env:\\s*${env}`), `${flag} and ${env}`);
    }
    assert.match(cli('dev', '--help').stdout, /--no-reload/);
  });

  it('--version prints the package version', () => {
    const { status, stdout } = cli('--version');
    assert.equal(status, 0);
    assert.equal(stdout.trim(), JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
  });

  it('refuses a bad flag, a stray argument and an unknown command with exit code 2', () => {
    const flag = cli('serve', '--prot', '9000');
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /unknown option '--prot'/);
    assert.match(flag.stderr, /--port/, 'suggests the flag meant');
    const stray = cli('serve', 'now');
    assert.equal(stray.status, 2);
    assert.match(stray.stderr, /too many arguments/);
    const typo = cli('sevre');
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /unknown command 'sevre' \(did you mean serve\?\)/);
  });
});

describe('request logs', () => {
  it('writes one access line per request with its request id and operationId, and run lines carry the run id', async () => {
    const { spawnServer, tempDir } = await import('../support/server.ts');
    const { FIXTURE_CONFIG } = await import('../fixtures/agent-server/project.ts');
    const server = await spawnServer(['--data', tempDir(), '--config', FIXTURE_CONFIG]);
    try {
      const res = await fetch(`${server.url}/threads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-123' },
        body: '{}',
      });
      assert.equal(res.headers.get('x-request-id'), 'req-123');
      const thread = (await res.json()) as { thread_id: string };
      await fetch(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } }),
      });
      // access lines may wait up to 100 ms in the log's buffer (runtime/logging/logOutput.ts)
      const access = await until('the access line', () => logLine(server.output(), 'request', (l) => l.request_id === 'req-123'));
      assert.equal(access.operation, 'createThread');
      assert.equal(access.status, 200);
      assert.equal(access.method, 'POST');
      assert.equal(typeof access.ms, 'number');
      const finished = await until('the run’s line', () => logLine(server.output(), 'run finished'));
      assert.match(String(finished?.run_id), /^[0-9a-f-]{36}$/);

      // a graph that throws is explained in the server log, with its run id and stack
      await fetch(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ assistant_id: 'flaky', input: { messages: [{ role: 'user', content: 'fail' }] } }),
      });
      const failure = await until('a "graph failed" line', () => logLine(server.output(), 'graph failed'));
      assert.match(failure.run_id, /^[0-9a-f-]{36}$/);
      assert.match(failure.err.message, /asked to fail/);
      assert.match(failure.err.stack, /graphs\.ts/);
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
