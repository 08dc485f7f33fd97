// An auth handler's filters confine what a user reaches. A store handler's filters confine
// every store list, namespaces as items: with the documented `{namespace: {$contains:
// identity}}` handler, one user neither lists another's namespace names nor finds their
// items, and a page holds the first items the caller may see (paged after filtering, as
// upstream), not a short page because others' came first. Joining the stream of another
// user's run answers as upstream: a stream whose one event says the thread was not found.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { stateReads } from '../../support/stateReads.ts';

let server: InProcessApp;
const as = (user: string) =>
  new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer user-${user}` }, callerOptions: { fetch: server.fetch, maxRetries: 0 } });

before(async () => {
  server = await areaApp('agent-server', {
    dataDir: null,
    project: { graphs: { echo: './examples/graphs/echo.ts:echo' }, auth: { path: path.join(ROOT, 'test/fixtures/auth/by-user.ts:auth') } },
  });
  // bob's namespaces sort before alice's, so an unfiltered first page would be all bob's
  for (const n of ['a', 'b', 'c']) await as('ns-bob').store.putItem(['a-notes', 'ns-bob', n], 'k', { secret: `bob ${n}` });
  for (const n of ['x', 'y']) await as('ns-alice').store.putItem(['b-notes', 'ns-alice', n], 'k', { mine: n });
});
after(() => server?.close());

describe('store lists under a handler’s filters', () => {
  it('namespaces: a user lists only the namespaces that name them', async () => {
    const { namespaces } = await as('ns-alice').store.listNamespaces();
    assert.deepEqual(namespaces, [
      ['b-notes', 'ns-alice', 'x'],
      ['b-notes', 'ns-alice', 'y'],
    ]);
    const truncated = await as('ns-alice').store.listNamespaces({ maxDepth: 1 });
    assert.deepEqual(truncated.namespaces, [], 'a namespace cut short of the name it contains is not theirs');
  });

  it('namespaces: pages are taken after filtering', async () => {
    assert.deepEqual((await as('ns-alice').store.listNamespaces({ limit: 1 })).namespaces, [['b-notes', 'ns-alice', 'x']]);
    assert.deepEqual((await as('ns-alice').store.listNamespaces({ limit: 1, offset: 1 })).namespaces, [['b-notes', 'ns-alice', 'y']]);
  });

  it('items: a search finds only the user’s items, paged after filtering', async () => {
    const all = await as('ns-alice').store.searchItems([]);
    assert.deepEqual(all.items.map((i) => i.value.mine).sort(), ['x', 'y']);
    assert.equal((await as('ns-alice').store.searchItems([], { limit: 1 })).items.length, 1);
    assert.equal((await as('ns-bob').store.searchItems(['b-notes'])).items.length, 0);
  });
});

describe('another user’s run stream', () => {
  it('joining it opens a stream whose one error event says the thread was not found, as upstream', async () => {
    const carol = as('owner-carol');
    const thread = await carol.threads.create();
    const run = await carol.runs.create(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'hi' }] } });
    await carol.runs.join(thread.thread_id, run.run_id);
    const res = await server.fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, {
      headers: { Authorization: 'Bearer user-owner-dave' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type')?.split(';')[0], 'text/event-stream');
    assert.equal(await res.text(), 'event: error\ndata: {"error":"Error","message":"404: Thread not found"}\n\n');
    // the SDK yields it as a chunk rather than throwing
    const chunks = [];
    for await (const { event, data } of as('owner-dave').runs.joinStream(thread.thread_id, run.run_id)) chunks.push({ event, data });
    assert.deepEqual(chunks, [{ event: 'error', data: { error: 'Error', message: '404: Thread not found' } }]);
    // the owner still joins it
    const own = await server.fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, {
      headers: { Authorization: 'Bearer user-owner-carol' },
    });
    assert.equal(own.status, 200);
    assert.doesNotMatch(await own.text(), /Thread not found/);
  });
});

describe('a thread confined by a handler’s filters', () => {
  it('is checked by its metadata alone: the owner reaches it and another user finds it missing, its state not read', async () => {
    const erin = as('owner-erin');
    const thread = await erin.threads.create();
    const messages = Array.from({ length: 50 }, (_, i) => ({ role: 'user', content: `message ${i}` }));
    const run = await erin.runs.create(thread.thread_id, 'echo', { input: { messages } });
    await erin.runs.join(thread.thread_id, run.run_id);
    const list = (user: string) => server.fetch(`${server.url}/threads/${thread.thread_id}/runs`, { headers: { Authorization: `Bearer user-${user}` } });
    const own = await stateReads(() => list('owner-erin'));
    assert.equal(own.result.status, 200);
    assert.deepEqual(
      ((await own.result.json()) as { run_id: string }[]).map((r) => r.run_id),
      [run.run_id],
    );
    assert.equal(own.reads, 0, `the thread's state was read ${own.reads} times to check it`);
    const other = await stateReads(() => list('owner-frank'));
    assert.equal(other.result.status, 404);
    assert.deepEqual(await other.result.json(), { detail: `Thread with ID ${thread.thread_id} not found` });
    assert.equal(other.reads, 0, `the thread's state was read ${other.reads} times to check it`);
  });
});
