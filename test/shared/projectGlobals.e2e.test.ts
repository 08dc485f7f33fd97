// A project that uses the platform's globals, as on the upstream server, starts and runs
// under `agentplane dev` unchanged: getLogger() of @langchain/langgraph-sdk/logging at the top
// of its modules, and `new Client()` with no URL in a graph node (run in a run worker) and in
// an http.app route reaching this server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, tempDir } from '../support/server.ts';
import { startDev, type DevProcess } from '../support/devProcess.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/platform-globals');

/** The JSON log lines printed so far with this message. */
const logged = (dev: DevProcess, msg: string) =>
  dev
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);

async function eventually<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never saw ${what}`);
}

for (const workers of ['2', '0']) {
  describe(`a project using getLogger() and new Client() under agentplane dev (AGENTPLANE_RUN_WORKERS=${workers})`, () => {
    let dev: DevProcess;
    let client: Client;

    before(async () => {
      const dir = tempDir('agentplane-globals-');
      fs.cpSync(FIXTURE, dir, { recursive: true });
      // the project's dependencies are this repository's (nothing to install)
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      dev = await startDev(dir, { AGENTPLANE_RUN_WORKERS: workers });
      client = new Client({ apiUrl: dev.url, callerOptions: { maxRetries: 0 } });
    });
    after(() => dev?.stop());

    it('starts: the graph module logged through getLogger() while loading', () => {
      assert.ok(logged(dev, 'introspect graph loaded').length >= 1, dev.output());
    });

    it('a graph node reaches this server with new Client() and logs through the platform logger', async () => {
      const thread = await client.threads.create();
      const result = (await client.runs.wait(thread.thread_id, 'introspect', { input: { messages: [{ role: 'user', content: 'who am I?' }] } })) as {
        messages: { content: string }[];
      };
      assert.equal(result.messages.at(-1)!.content, `thread ${thread.thread_id} is busy; 1 introspect assistant(s)`);
      const line = await eventually('the node’s log line', () => logged(dev, 'introspected').find((l) => l.thread_id === thread.thread_id));
      assert.equal(line.level, 'info');
      assert.equal(line.status, 'busy');
      assert.equal(line.langgraph_node, 'introspect');
    });

    it('an http.app route reaches this server with new Client()', async () => {
      await client.threads.create();
      const expected = await client.threads.count();
      const res = await fetch(`${dev.url}/threads-count`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { count: expected });
      assert.equal(logged(dev, 'counted threads').at(-1)?.level, 'warn');
    });
  });
}
