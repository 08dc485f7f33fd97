// Crons through @langchain/langgraph-sdk's client.crons (every method), and the scheduler:
// a one-second cron fires on time, keeps firing across a restart, and a due time missed
// while the server was down fires once, not once per missed second.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, startTestServer, tempDir, type ChildServer, type TestServer } from '../support/server.ts';
import { FIXTURE_CONFIG, testProject } from './fixtures/project.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('client.crons against agentplane', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer({ project: testProject });
    client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
  });
  after(() => server.close());

  it('creates, searches, counts, updates and deletes crons', async () => {
    const thread = await client.threads.create();
    const onThread = await client.crons.createForThread(thread.thread_id, 'echo', { schedule: '0 9 * * 1-5', input: say('daily'), metadata: { kind: 'report' } });
    assert.equal(onThread.thread_id, thread.thread_id);
    assert.ok(onThread.next_run_date && Date.parse(onThread.next_run_date) > Date.now());
    const stateless = await client.crons.create('agent', { schedule: '*/30 * * * *', input: say('tick'), onRunCompleted: 'keep' });
    assert.equal(stateless.thread_id, null);

    const all = await client.crons.search({});
    assert.ok(all.some((c) => c.cron_id === onThread.cron_id) && all.some((c) => c.cron_id === stateless.cron_id));
    const byThread = await client.crons.search({ threadId: thread.thread_id });
    assert.deepEqual(byThread.map((c) => c.cron_id), [onThread.cron_id]);
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
    const deadline = Date.now() + 20_000;
    await sleep(2500);
    while ((await threadsSaying('kept')).length === 0 && Date.now() < deadline) await sleep(200);
    await client.crons.delete(kept.cron_id);
    await client.crons.delete(dropped.cron_id);
    await sleep(300);
    // a run the cron started before it was deleted deletes its thread when it ends
    while ((await threadsSaying('dropped')).length > 0 && Date.now() < deadline) await sleep(200);
    assert.ok((await threadsSaying('kept')).length >= 1, 'kept threads stay');
    assert.equal((await threadsSaying('dropped')).length, 0, 'threads of on_run_completed=delete are gone');
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
    await sleep(3200);
    const before = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    assert.ok(before >= 2 && before <= 5, `about one run a second before the restart, got ${before} in 3.2 s`);
    await first.kill('SIGKILL');

    await sleep(3000); // about three due times pass while the server is down
    const second = await spawnServer(args);
    servers.push(second);
    client = new Client({ apiUrl: second.url, callerOptions: { maxRetries: 0 } });
    const atStart = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    assert.ok(atStart - before <= 2, `missed due times fire once, not once each (${atStart - before} new at start)`);
    await sleep(3200);
    const afterRestart = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    assert.ok(afterRestart - atStart >= 2 && afterRestart - atStart <= 5, `about one run a second after the restart, got ${afterRestart - atStart} in 3.2 s`);
    await second.kill('SIGTERM');
  });
});
