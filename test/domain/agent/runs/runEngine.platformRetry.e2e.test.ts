// A run whose store fails under it (here the embedded store's disk: EIO while the graph
// writes its checkpoint) was cut short by the platform, not by its graph: it is started
// again as attempt 2 once the store works, resumes from its last checkpoint and succeeds —
// never recorded as the graph's error. A real server in a child process, its journal on a
// disk the test breaks and mends (test/support/faultyDisk.mjs); PostgreSQL's side of the
// same rule is test/adapters/postgres.restart.faults.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnServer, tempDir } from '../../../support/server.ts';
import { FIXTURE_CONFIG } from '../../../fixtures/agent-server/project.ts';
import { logLine } from '../../../support/logLines.ts';

const preload = new URL('../../../support/faultyDisk.mjs', import.meta.url).href;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a run whose checkpoint write meets a failing disk is started again as attempt 2 and succeeds', async () => {
  const control = path.join(tempDir(), 'disk');
  const release = path.join(tempDir(), 'release');
  const env = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim(), FAULTY_DISK_LIMIT: control };
  const server = await spawnServer(['--data', tempDir(), '--config', FIXTURE_CONFIG], env);
  const call = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(server.url + pathname, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  try {
    const threadId = (await call('POST', '/threads', {})).body.thread_id as string;
    // `steps` writes a checkpoint, then waits for `release` before writing the next
    const run = await call('POST', `/threads/${threadId}/runs`, {
      assistant_id: 'steps',
      input: { messages: [{ role: 'user', content: 'hi' }] },
      config: { configurable: { release_file: release } },
    });
    assert.equal(run.status, 200);
    const runPath = `/threads/${threadId}/runs/${run.body.run_id as string}`;
    for (let i = 0; i < 600 && !(await call('GET', `/threads/${threadId}/state`)).body.next.includes('answer'); i += 1) await sleep(25);

    // the disk fails, then the graph goes on: its next checkpoint cannot be written
    fs.writeFileSync(control, 'EIO');
    fs.writeFileSync(release, '');
    const retrying = /could not record the end of the run; trying again/;
    for (let i = 0; i < 600 && !retrying.test(server.output()); i += 1) await sleep(50);
    assert.match(server.output(), retrying);
    assert.equal((await call('GET', runPath)).body.status, 'running', 'nothing was written meanwhile');

    // the disk works again: the run is started again, without anyone asking, and succeeds
    fs.rmSync(control);
    const joined = await fetch(`${server.url}${runPath}/join`, { signal: AbortSignal.timeout(60_000) });
    assert.equal(joined.status, 200);
    const ended = (await call('GET', runPath)).body;
    assert.equal(ended.status, 'success', `the run ended ${ended.status}`);
    assert.ok(
      logLine(server.output(), 'the platform interrupted the run; starting it again', (l) => l.run_id === run.body.run_id && l.attempt === 2),
      'the server says it started the run again (attempt 2)',
    );
    const stream = await fetch(`${server.url}${runPath}/stream`).then((res) => res.text());
    assert.match(stream, /"attempt":1[\s\S]*"attempt":2/);
    assert.doesNotMatch(stream, /event: error/);
    const state = (await call('GET', `/threads/${threadId}/state`)).body;
    assert.deepEqual(
      state.values.messages.map((m: { type: string; content: string }) => `${m.type}:${m.content}`),
      ['human:hi', 'ai:hi'],
    );
    assert.equal((await call('GET', `/threads/${threadId}`)).body.status, 'idle');
  } finally {
    await server.kill('SIGKILL');
  }
});
