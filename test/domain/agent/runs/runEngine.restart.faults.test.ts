// Queued runs survive kill -9: after a restart on the same data dir they all complete, in
// the order they were created; the run in flight at the crash is started again. A graceful
// stop (SIGTERM) interrupts the run in flight too: it starts again as the next attempt.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, tempDir, type ChildServer } from '../../../support/server.ts';
import { FIXTURE_CONFIG } from '../../../fixtures/agent-server/project.ts';

describe('run queue across a crash', () => {
  // one data directory and one live server at a time for both cases: each case stops the
  // live server its way and leaves the one it restarted live for the next (a start costs
  // seconds of CPU); each works on threads of its own, so either runs alone as well
  const dataDir = tempDir();
  const args = ['--data', dataDir, '--config', FIXTURE_CONFIG];
  const servers: ChildServer[] = [];
  let live: ChildServer;
  const restart = async () => {
    live = await spawnServer(args);
    servers.push(live);
    return live;
  };
  before(restart);
  after(async () => {
    for (const s of servers) await s.kill('SIGTERM');
  });

  it('completes every queued run in order after kill -9 and restart', async () => {
    const first = live;
    const client = new Client({ apiUrl: first.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const runs = [];
    for (let i = 0; i < 6; i += 1) {
      runs.push(await client.runs.create(thread.thread_id, 'slow', { input: { messages: [{ role: 'user', content: `m${i}` }] }, context: { delay_ms: 300 } }));
    }
    for await (const chunk of client.runs.joinStream(thread.thread_id, runs[0].run_id)) if (chunk.event === 'metadata') break;
    assert.equal((await client.runs.get(thread.thread_id, runs[5].run_id)).status, 'pending');
    await first.kill('SIGKILL');

    const second = await restart();
    const again = new Client({ apiUrl: second.url, callerOptions: { maxRetries: 0 } });
    await again.runs.join(thread.thread_id, runs[5].run_id);
    for (const run of runs) assert.equal((await again.runs.get(thread.thread_id, run.run_id)).status, 'success');
    const state = await again.threads.getState(thread.thread_id);
    const transcript = (state.values as { messages: { type: string; content: string }[] }).messages.map((m) => `${m.type}:${m.content}`);
    assert.deepEqual(transcript, Array.from({ length: 6 }, (_, i) => [`human:m${i}`, `ai:m${i}`]).flat());
    assert.match(second.output(), /starting it again/);
  });

  it('starts the run in flight at a graceful stop (SIGTERM) again as attempt 2 after the restart', async () => {
    const release = path.join(tempDir(), 'release');
    const first = live;
    const client = new Client({ apiUrl: first.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    // `steps` waits for the release file in its second step, honouring its abort signal
    const run = await client.runs.create(thread.thread_id, 'steps', {
      input: { messages: [{ role: 'user', content: 'hi' }] },
      config: { configurable: { release_file: release } },
    });
    for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) if (chunk.event === 'metadata') break;
    assert.equal(await first.kill('SIGTERM'), 0, 'SIGTERM exits cleanly');
    // the platform, not the graph, cut the run short: a new attempt, told before the exit
    // one line with the message, the run and its attempt, in whatever order the logger writes its fields
    const line = first
      .output()
      .split('\n')
      .find((l) => l.includes('"the platform interrupted the run; starting it again"') && l.includes(`"run_id":"${run.run_id}"`));
    assert.match(line ?? '', /"attempt":2[,}]/, first.output());

    fs.writeFileSync(release, '');
    const second = await restart();
    const again = new Client({ apiUrl: second.url, callerOptions: { maxRetries: 0 } });
    await again.runs.join(thread.thread_id, run.run_id);
    assert.equal((await again.runs.get(thread.thread_id, run.run_id)).status, 'success');
    const stream = await fetch(`${second.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`).then((res) => res.text());
    assert.match(stream, /"attempt":2/);
    assert.doesNotMatch(stream, /event: error/);
    // attempt 2 continues from the run's own checkpoints: its input is not added a second time
    const state = await again.threads.getState(thread.thread_id);
    assert.deepEqual(
      (state.values as { messages: { type: string; content: string }[] }).messages.map((m) => `${m.type}:${m.content}`),
      ['human:hi', 'ai:hi'],
    );
  });
});
