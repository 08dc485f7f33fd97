// Custom auth handlers get the `value` objects the upstream JS server passes: the same keys
// for each operation, present even when the request left them out (the upstream
// documentation's `on("*")` owner example depends on `"metadata" in value`), and what the
// handler writes into them is what gets stored.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';
import { seen } from '../../fixtures/auth/owner-everywhere.ts';
import { uuid5 } from '../../../src/domain/agent/ids.ts';

let server: InProcessApp;
const as = (user: string) =>
  new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer user-${user}` }, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
const say = (content: string) => ({ messages: [{ role: 'user', content }] });

before(async () => {
  server = await areaApp('agent-server', {
    dataDir: null,
    project: { ...testProject, auth: { path: path.join(ROOT, 'test/fixtures/auth/owner-everywhere.ts:auth') } },
  });
});
after(() => server.close());

/** What the handler saw for the calls `act` makes. */
async function valuesOf(act: () => Promise<unknown>): Promise<{ event: string; keys: string[]; value: Record<string, any> }[]> {
  const from = seen.length;
  await act();
  return seen.slice(from);
}

describe('auth handler values', () => {
  it('the documented on("*") owner example: a thread created with an empty body is its creator’s', async () => {
    const alice = as('alice');
    const res = await server.fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { Authorization: 'Bearer user-alice', 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 200);
    const thread = (await res.json()) as { thread_id: string; metadata: unknown };
    assert.deepEqual(thread.metadata, { owner: 'alice' });
    assert.equal((await alice.threads.get(thread.thread_id)).thread_id, thread.thread_id);
    await assert.rejects(as('bob').threads.get(thread.thread_id), (err: { status?: number }) => err.status === 404);
    // a run created without metadata is stamped too
    const run = await alice.runs.create(thread.thread_id, 'echo', { input: say('hi') });
    assert.equal((run.metadata as Record<string, unknown>).owner, 'alice');
  });

  it('a thread a run creates (if_not_exists: create) carries the run’s metadata, so its creator reads it', async () => {
    // as upstream: the new thread's metadata is {graph_id, assistant_id, ...the run's}; the
    // handler stamped the run's with the owner, which the thread filter then asks for
    const threadId = crypto.randomUUID();
    await as('dora').runs.wait(threadId, 'echo', { input: say('hi'), ifNotExists: 'create' });
    const thread = await as('dora').threads.get(threadId);
    assert.equal(thread.metadata?.owner, 'dora');
    assert.equal(thread.metadata?.graph_id, 'echo');
    await assert.rejects(as('erin').threads.get(threadId), (err: { status?: number }) => err.status === 404);
  });

  it('threads: the upstream keys for create, read, update, search, count, delete', async () => {
    const client = as('carol');
    let thread!: { thread_id: string };
    const created = await valuesOf(async () => (thread = await client.threads.create()));
    assert.deepEqual(
      created.map((v) => [v.event, v.keys]),
      [['threads:create', ['thread_id', 'metadata', 'if_exists']]],
    );
    assert.deepEqual(created[0].value, { thread_id: thread.thread_id, metadata: {}, if_exists: 'raise' });
    assert.deepEqual(
      (await valuesOf(() => client.threads.get(thread.thread_id))).map((v) => [v.event, v.keys]),
      [['threads:read', ['thread_id']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.threads.update(thread.thread_id, {}))).map((v) => [v.event, v.keys]),
      [['threads:update', ['thread_id', 'metadata']]],
    );
    const searched = await valuesOf(() => client.threads.search({}));
    assert.deepEqual(
      searched.map((v) => [v.event, v.keys]),
      [['threads:search', ['metadata', 'ids', 'status', 'values', 'limit', 'offset']]],
    );
    assert.deepEqual([searched[0].value.limit, searched[0].value.offset], [10, 0]);
    assert.deepEqual(
      (await valuesOf(() => client.threads.count({}))).map((v) => [v.event, v.keys]),
      [['threads:search', ['metadata', 'values', 'status', 'limit', 'offset']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.threads.getState(thread.thread_id))).map((v) => [v.event, v.keys]),
      [['threads:read', ['thread_id']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.threads.delete(thread.thread_id))).map((v) => [v.event, v.keys]),
      [['threads:delete', ['thread_id']]],
    );
  });

  it('assistants: the upstream keys for create, read, update, set latest, search, count, delete', async () => {
    const client = as('dave');
    let assistant!: { assistant_id: string };
    const created = await valuesOf(async () => (assistant = await client.assistants.create({ graphId: 'echo' })));
    assert.deepEqual(
      created.map((v) => [v.event, v.keys]),
      [['assistants:create', ['assistant_id', 'config', 'context', 'graph_id', 'metadata', 'if_exists', 'name', 'description']]],
    );
    assert.equal(created[0].value.assistant_id, assistant.assistant_id, 'the id the assistant gets');
    assert.deepEqual((await client.assistants.get(assistant.assistant_id)).metadata, { owner: 'dave' });
    assert.deepEqual(
      (await valuesOf(() => client.assistants.get(assistant.assistant_id))).map((v) => [v.event, v.keys]),
      [['assistants:read', ['assistant_id']]],
    );
    const updated = await valuesOf(() => client.assistants.update(assistant.assistant_id, { metadata: { x: 1 } }));
    assert.deepEqual(
      updated.map((v) => [v.event, v.keys]),
      [['assistants:update', ['assistant_id', 'graph_id', 'config', 'metadata', 'name', 'description']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.assistants.setLatest(assistant.assistant_id, 1))).map((v) => [v.event, v.keys]),
      [['assistants:update', ['assistant_id', 'version']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.assistants.search({}))).map((v) => [v.event, v.keys]),
      [['assistants:search', ['graph_id', 'metadata', 'limit', 'offset']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.assistants.count({}))).map((v) => [v.event, v.value.limit]),
      [['assistants:search', 0]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.assistants.delete(assistant.assistant_id))).map((v) => [v.event, v.keys]),
      [['assistants:delete', ['assistant_id']]],
    );
  });

  it('runs: create_run with the run kwargs, one value per run of a batch; cancel and delete', async () => {
    const client = as('erin');
    const thread = await client.threads.create();
    let run!: { run_id: string };
    const created = await valuesOf(async () => (run = await client.runs.create(thread.thread_id, 'echo', { input: say('hi') })));
    assert.deepEqual(
      created.map((v) => [v.event, v.keys]),
      [
        [
          'threads:create_run',
          [
            'thread_id',
            'assistant_id',
            'run_id',
            'status',
            'metadata',
            'prevent_insert_if_inflight',
            'multitask_strategy',
            'if_not_exists',
            'after_seconds',
            'kwargs',
          ],
        ],
      ],
    );
    const { value } = created[0];
    assert.deepEqual(Object.keys(value.kwargs), [
      'input',
      'command',
      'config',
      'context',
      'stream_mode',
      'interrupt_before',
      'interrupt_after',
      'webhook',
      'feedback_keys',
      'temporary',
      'subgraphs',
      'resumable',
    ]);
    assert.deepEqual(
      [value.thread_id, value.assistant_id, value.status, value.metadata, value.kwargs.stream_mode, value.kwargs.temporary],
      [thread.thread_id, uuid5('echo'), 'pending', {}, ['values'], false],
    );
    await client.runs.join(thread.thread_id, run.run_id);
    const batch = await valuesOf(() =>
      client.runs.createBatch([
        { assistantId: 'echo', input: say('a') },
        { assistantId: 'echo', input: say('b') },
      ]),
    );
    assert.deepEqual(
      batch.map((v) => [v.event, v.value.kwargs.temporary]),
      [
        ['threads:create_run', true],
        ['threads:create_run', true],
      ],
    );
    const cancelled = await valuesOf(() => client.runs.cancel(thread.thread_id, run.run_id));
    assert.deepEqual(
      cancelled.map((v) => [v.event, v.value]),
      [['threads:update', { thread_id: thread.thread_id, action: 'interrupt', metadata: { run_ids: [run.run_id], status: 'pending' } }]],
    );
    const deleted = await valuesOf(() => client.runs.delete(thread.thread_id, run.run_id));
    assert.deepEqual(
      deleted.map((v) => [v.event, v.value]),
      [['threads:delete', { run_id: run.run_id, thread_id: thread.thread_id }]],
    );
  });

  it('crons: the Python server’s keys (the JS server has no crons)', async () => {
    const client = as('grace');
    const thread = await client.threads.create();
    let cron!: { cron_id: string };
    const created = await valuesOf(
      async () => (cron = await client.crons.createForThread(thread.thread_id, 'echo', { schedule: '0 0 1 1 *', input: say('yearly') })),
    );
    assert.deepEqual(
      created.map((v) => [v.event, v.keys]),
      [['crons:create', ['payload', 'schedule', 'cron_id', 'thread_id', 'user_id', 'end_time']]],
    );
    assert.deepEqual([created[0].value.schedule, created[0].value.thread_id, created[0].value.payload.assistant_id], ['0 0 1 1 *', thread.thread_id, 'echo']);
    assert.deepEqual(
      (await valuesOf(() => client.crons.search({ threadId: thread.thread_id }))).map((v) => [v.event, v.keys]),
      [['crons:search', ['assistant_id', 'thread_id', 'limit', 'offset']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.crons.delete(cron.cron_id))).map((v) => [v.event, v.value]),
      [['crons:delete', { cron_id: cron.cron_id }]],
    );
  });

  it('store: the upstream keys, the namespace as a list', async () => {
    const client = as('frank');
    assert.deepEqual(
      (await valuesOf(() => client.store.putItem(['a', 'b'], 'k', { v: 1 }))).map((v) => [v.event, v.value]),
      [['store:put', { namespace: ['a', 'b'], key: 'k', value: { v: 1 } }]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.store.getItem(['a', 'b'], 'k'))).map((v) => [v.event, v.value]),
      [['store:get', { namespace: ['a', 'b'], key: 'k' }]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.store.searchItems(['a']))).map((v) => [v.event, v.keys, v.value.namespace]),
      [['store:search', ['namespace', 'filter', 'limit', 'offset', 'query'], ['a']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.store.listNamespaces())).map((v) => [v.event, v.keys]),
      [['store:list_namespaces', ['namespace', 'suffix', 'max_depth', 'limit', 'offset']]],
    );
    assert.deepEqual(
      (await valuesOf(() => client.store.deleteItem(['a', 'b'], 'k'))).map((v) => [v.event, v.value]),
      [['store:delete', { namespace: ['a', 'b'], key: 'k' }]],
    );
  });
});
