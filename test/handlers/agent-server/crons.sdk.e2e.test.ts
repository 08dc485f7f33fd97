// Crons through @langchain/langgraph-sdk's client.crons (every method), and the scheduler:
// a one-second cron fires on time, keeps firing across a restart, and a due time missed
// while the server was down fires once, not once per missed second.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, startTestServer, tempDir, type ChildServer, type TestServer } from '../../support/server.ts';
import { FIXTURE_CONFIG, testProject } from '../../fixtures/agent-server/project.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import { until } from '../../support/until.ts';
const say = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('client.crons against agentplane', () => {
  let server: TestServer;
  let client: Client;
  // the server's log lines, to see the scheduler fire
  const lines: { msg: string; cron_id?: string }[] = [];
  before(async () => {
    server = await startTestServer({ project: testProject, log: createLogger('info', {}, (line) => void lines.push(JSON.parse(line))) });
    client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
  });
  after(() => server.close());

  it('creates, searches, counts, updates and deletes crons', async () => {
    const thread = await client.threads.create();
    const onThread = await client.crons.createForThread(thread.thread_id, 'echo', {
      schedule: '0 9 * * 1-5',
      input: say('daily'),
      metadata: { kind: 'report' },
    });
    assert.equal(onThread.thread_id, thread.thread_id);
    assert.ok(onThread.next_run_date && Date.parse(onThread.next_run_date) > Date.now());
    const stateless = await client.crons.create('agent', { schedule: '*/30 * * * *', input: say('tick'), onRunCompleted: 'keep' });
    assert.equal(stateless.thread_id, null);

    const all = await client.crons.search({});
    assert.ok(all.some((c) => c.cron_id === onThread.cron_id) && all.some((c) => c.cron_id === stateless.cron_id));
    const byThread = await client.crons.search({ threadId: thread.thread_id });
    assert.deepEqual(
      byThread.map((c) => c.cron_id),
      [onThread.cron_id],
    );
    const byMeta = await client.crons.search({ metadata: { kind: 'report' }, select: ['cron_id', 'schedule'] });
    assert.deepEqual(byMeta, [{ cron_id: onThread.cron_id, schedule: '0 9 * * 1-5' }]);
    assert.equal(await client.crons.count({ assistantId: 'agent' }), 1);

    const paused = await client.crons.update(stateless.cron_id, { enabled: false });
    assert.equal(paused.enabled, false);
    assert.equal(paused.next_run_date, null);
    const moved = await client.crons.update(stateless.cron_id, { enabled: true, schedule: '15 * * * *' });
    assert.equal(new Date(moved.next_run_date!).getUTCMinutes(), 15);

    await client.crons.delete(onThread.cron_id);
    await assert.rejects(client.crons.delete(onThread.cron_id), /404/);
    await assert.rejects(client.crons.update(onThread.cron_id, { enabled: false }), /404/);
    await client.crons.delete(stateless.cron_id);
  });

  it('answers 422 for a schedule or time zone that cannot be used, and 404 for an unknown thread', async () => {
    await assert.rejects(client.crons.create('echo', { schedule: 'every tuesday' }), /422/);
    await assert.rejects(client.crons.create('echo', { schedule: '* * * * *', timezone: 'Mars/Olympus' }), /422/);
    await assert.rejects(client.crons.createForThread('0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10', 'echo', { schedule: '* * * * *' }), /404/);
    assert.equal(await client.crons.count(), 0);
  });

  it('a stateless cron runs on a new thread and deletes it afterwards unless asked to keep it', async () => {
    const kept = await client.crons.create('echo', { schedule: '* * * * * *', input: say('kept'), onRunCompleted: 'keep', metadata: { case: 'kept' } });
    const dropped = await client.crons.create('echo', { schedule: '* * * * * *', input: say('dropped'), metadata: { case: 'dropped' } });
    // the crons fire every second; the first runs may wait for a run worker to load the graphs
    const threadsSaying = async (word: string) => (await client.threads.search({ limit: 100 })).filter((t) => JSON.stringify(t.values).includes(`"${word}"`));
    const firings = (cronId: string) => lines.filter((l) => l.msg === 'cron fired' && l.cron_id === cronId).length;
    await until('both crons to have fired', () => firings(kept.cron_id) > 0 && firings(dropped.cron_id) > 0);
    await until('a kept thread with its answer', async () => (await threadsSaying('kept')).length > 0);
    await client.crons.delete(kept.cron_id);
    await client.crons.delete(dropped.cron_id);
    // the scheduler fires in one tick after another: once a cron made after the deletes has
    // fired, no firing of the deleted ones is still under way
    const marker = await client.crons.create('echo', { schedule: '* * * * * *', input: say('marker') });
    await until('a firing after the deletes', () => firings(marker.cron_id) > 0);
    await client.crons.delete(marker.cron_id);
    // a run the cron started before it was deleted deletes its thread when it ends
    await until('the threads of on_run_completed=delete to be gone', async () => (await threadsSaying('dropped')).length === 0);
    assert.ok((await threadsSaying('kept')).length >= 1, 'kept threads stay');
  });
});

describe('the cron scheduler across a restart', () => {
  const servers: ChildServer[] = [];
  after(async () => {
    for (const s of servers) await s.kill();
  });

  it('fires a one-second cron on time before and after a restart, and a missed due time once', async () => {
    const args = ['--data', tempDir(), '--config', FIXTURE_CONFIG];
    const first = await spawnServer(args);
    servers.push(first);
    let client = new Client({ apiUrl: first.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    await client.crons.createForThread(thread.thread_id, 'echo', { schedule: '* * * * * *', input: say('tick') });
    const countRuns = async () => (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    const before = await until('two runs before the restart', async () => {
      const n = await countRuns();
      return n >= 2 && n;
    });
    await first.kill('SIGKILL');

    // the scenario itself: about three due times pass while the server is down
    await sleep(3000);
    const second = await spawnServer(args);
    servers.push(second);
    client = new Client({ apiUrl: second.url, callerOptions: { maxRetries: 0 } });
    const atStart = await countRuns();
    assert.ok(atStart - before <= 2, `missed due times fire once, not once each (${atStart - before} new at start)`);
    await until('two more runs after the restart', async () => (await countRuns()) >= atStart + 2);
    await second.kill('SIGTERM');
  });
});
