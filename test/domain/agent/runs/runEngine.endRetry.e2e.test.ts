// A run whose end cannot be recorded (the disk fails while the graph runs) must not stay
// `running` with its thread busy for ever: the end is written again until the disk takes it,
// and the thread then serves the next run. A real server in a child process, its journal on
// a disk the test breaks and mends (test/support/faultyDisk.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, spawnServer, tempDir } from '../../../support/server.ts';

const preload = new URL('../../../support/faultyDisk.mjs', import.meta.url).href;
const project = path.join(ROOT, 'test/fixtures/slow-project');

test('a run whose end meets a failing disk ends once the disk works again; its thread takes the next run', async () => {
  const dataDir = tempDir();
  const control = path.join(tempDir(), 'disk');
  const env = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim(), FAULTY_DISK_LIMIT: control, SLOW_GRAPH_MS: '1500' };
  let server = await spawnServer(['--data', dataDir], env, project);
  const call = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(server.url + pathname, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  try {
    const thread = await call('POST', '/threads', {});
    const threadId = thread.body.thread_id as string;
    const run = await call('POST', `/threads/${threadId}/runs`, { assistant_id: 'slow', input: { messages: [{ type: 'human', content: 'hi' }] } });
    assert.equal(run.status, 200);
    const runPath = `/threads/${threadId}/runs/${run.body.run_id as string}`;
    const statusOf = async () => (await call('GET', runPath)).body.status as string;
    for (let i = 0; i < 200 && (await statusOf()) !== 'running'; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await statusOf(), 'running');

    // the disk fails while the graph works; the graph ends and its end cannot be written
    fs.writeFileSync(control, 'EIO');
    // until the server says it is retrying (the graph may start late: a run worker loads the
    // project's graphs first), however long the machine takes
    const retrying = /could not record the end of the run; trying again/;
    for (let i = 0; i < 600 && !retrying.test(server.output()); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(server.output(), retrying);
    assert.equal(await statusOf(), 'running', 'nothing was written, so the run is still running');

    // the disk works again: the end is recorded without anyone asking
    fs.rmSync(control);
    let status = await statusOf();
    for (let i = 0; i < 300 && status === 'running'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await statusOf();
    }
    assert.equal(status, 'success', 'the run stayed running after the disk came back');
    const state = await call('GET', `/threads/${threadId}/state`);
    assert.deepEqual(
      (state.body.values as { messages: { content: string }[] }).messages.map((m) => m.content),
      ['hi', 'done after 1 message(s)'],
    );
    assert.equal((await call('GET', `/threads/${threadId}`)).body.status, 'idle');

    // the thread is not stuck busy: the next run executes, and both survive kill -9
    const next = await call('POST', `/threads/${threadId}/runs/wait`, { assistant_id: 'slow', input: { messages: [{ type: 'human', content: 'again' }] } });
    assert.equal(next.status, 200);
    await server.kill('SIGKILL');
    server = await spawnServer(['--data', dataDir], {}, project);
    const runs = await call('GET', `/threads/${threadId}/runs`);
    assert.deepEqual(
      (runs.body as unknown as { status: string }[]).map((r) => r.status),
      ['success', 'success'],
    );
  } finally {
    await server.kill('SIGKILL');
  }
});
