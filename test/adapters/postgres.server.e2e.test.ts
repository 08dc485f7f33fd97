// The server on PostgreSQL (part of every `npm test`; `npm run test:postgres` runs the whole
// integration suite on it): records in the database and a run
// queue that survives kill -9 of the server like on the embedded store.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { logLine } from '../support/logLines.ts';
import { FIXTURE_CONFIG } from '../fixtures/agent-server/project.ts';

describe('agentplane on PostgreSQL', () => {
  const servers: ChildServer[] = [];
  after(async () => {
    for (const s of servers) await s.kill();
  });

  it('keeps records in the database and finishes queued runs after kill -9', async () => {
    const env = { DATABASE_URL: await freshDatabaseUrl() };
    // a fresh data directory per start: nothing of the state may come from the disk
    const args = () => ['--data', tempDir(), '--config', FIXTURE_CONFIG];
    const first = await spawnServer(args(), env);
    servers.push(first);
    assert.equal(logLine(first.output(), 'agentplane listening')?.store, 'postgresql');
    const client = new Client({ apiUrl: first.url, callerOptions: { maxRetries: 0 } });

    // a stateless run's temporary thread is gone by the time its stream has ended
    let created: { run_id: string; thread_id?: string } | undefined;
    const stateless = await client.runs.create(null, 'echo', {
      input: { messages: [{ role: 'user', content: 'hi' }] },
      onRunCreated: (meta) => (created = meta),
    });
    assert.ok(created);
    for await (const _ of client.runs.joinStream(null, stateless.run_id));
    await assert.rejects(client.threads.get(stateless.thread_id), /404/);

    const thread = await client.threads.create({ metadata: { b: 1, a: 2 } });
    const runs = [];
    // the first run is long enough to be in flight at the crash on a loaded machine: with 300 ms
    // it had ended in CI before the kill, and nothing was left in flight to start again
    for (let i = 0; i < 4; i += 1) {
      const delay = i === 0 ? 5000 : 300;
      runs.push(
        await client.runs.create(thread.thread_id, 'slow', { input: { messages: [{ role: 'user', content: `m${i}` }] }, context: { delay_ms: delay } }),
      );
    }
    for await (const chunk of client.runs.joinStream(thread.thread_id, runs[0].run_id)) if (chunk.event === 'metadata') break;
    await first.kill('SIGKILL');

    const second = await spawnServer(args(), env);
    servers.push(second);
    const again = new Client({ apiUrl: second.url, callerOptions: { maxRetries: 0 } });
    await again.runs.join(thread.thread_id, runs[3].run_id);
    for (const run of runs) assert.equal((await again.runs.get(thread.thread_id, run.run_id)).status, 'success');
    const state = await again.threads.getState(thread.thread_id);
    const transcript = (state.values as { messages: { type: string; content: string }[] }).messages.map((m) => `${m.type}:${m.content}`);
    assert.deepEqual(transcript, Array.from({ length: 4 }, (_, i) => [`human:m${i}`, `ai:m${i}`]).flat());
    assert.match(second.output(), /starting it again/, 'the run in flight at the crash ran again');
    // metadata comes back with the keys in the order they were sent
    const read = await fetch(`${second.url}/threads/${thread.thread_id}`).then((r) => r.text());
    assert.match(read, /"metadata":\{"b":1,"a":2/);
    await second.kill('SIGTERM');
  });
});
