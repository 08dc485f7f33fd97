// The long-term memory store through @langchain/langgraph-sdk's client.store (every method),
// TTL, semantic search with a project embeddings index, and tenants kept apart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

describe('client.store against agentplane', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', {
      project: { ...testProject, store: { index: { embed: './test/fixtures/agent-server/memory.ts:letterEmbeddings', dims: 26, fields: ['text'] } } },
    });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
  });
  after(() => server.close());

  it('puts, gets, searches, lists namespaces and deletes items', async () => {
    await client.store.putItem(['users', 'alice', 'prefs'], 'colour', { text: 'green' });
    await client.store.putItem(['users', 'alice', 'facts'], 'city', { text: 'Lisbon', country: 'PT' });
    await client.store.putItem(['users', 'bob', 'prefs'], 'colour', { text: 'blue' });

    const item = await client.store.getItem(['users', 'alice', 'prefs'], 'colour');
    assert.ok(item);
    assert.deepEqual(item.namespace, ['users', 'alice', 'prefs']);
    assert.equal(item.key, 'colour');
    assert.deepEqual(item.value, { text: 'green' });
    assert.ok(!Number.isNaN(Date.parse(item.createdAt)));
    assert.equal(await client.store.getItem(['users', 'alice', 'prefs'], 'missing'), null);

    // an update keeps created_at and moves updated_at
    await new Promise((r) => setTimeout(r, 5));
    await client.store.putItem(['users', 'alice', 'prefs'], 'colour', { text: 'dark green' });
    const updated = await client.store.getItem(['users', 'alice', 'prefs'], 'colour');
    assert.equal(updated!.createdAt, item.createdAt);
    assert.ok(updated!.updatedAt > item.updatedAt);

    const alice = await client.store.searchItems(['users', 'alice']);
    assert.deepEqual(alice.items.map((i) => i.key).sort(), ['city', 'colour']);
    const filtered = await client.store.searchItems(['users'], { filter: { country: 'PT' } });
    assert.deepEqual(
      filtered.items.map((i) => i.value.text),
      ['Lisbon'],
    );
    const paged = await client.store.searchItems(['users'], { limit: 1, offset: 1 });
    assert.equal(paged.items.length, 1);

    const all = await client.store.listNamespaces();
    assert.deepEqual(all.namespaces, [
      ['users', 'alice', 'facts'],
      ['users', 'alice', 'prefs'],
      ['users', 'bob', 'prefs'],
    ]);
    const shallow = await client.store.listNamespaces({ prefix: ['users'], maxDepth: 2 });
    assert.deepEqual(shallow.namespaces, [
      ['users', 'alice'],
      ['users', 'bob'],
    ]);
    const bySuffix = await client.store.listNamespaces({ suffix: ['prefs'] });
    assert.deepEqual(bySuffix.namespaces, [
      ['users', 'alice', 'prefs'],
      ['users', 'bob', 'prefs'],
    ]);

    await client.store.deleteItem(['users', 'bob', 'prefs'], 'colour');
    assert.equal(await client.store.getItem(['users', 'bob', 'prefs'], 'colour'), null);
    await client.store.deleteItem(['users', 'bob', 'prefs'], 'colour'); // deleting twice is fine, as upstream
  });

  it('ranks by similarity when the project configures an embeddings index', async () => {
    const ns = ['docs', randomUUID()];
    await client.store.putItem(ns, 'a', { text: 'zebra zoo jazz' });
    await client.store.putItem(ns, 'b', { text: 'apple banana' });
    const { items } = await client.store.searchItems(ns, { query: 'banana bread' });
    assert.equal(items[0].key, 'b');
    assert.equal(typeof items[0].score, 'number');
    assert.ok(items[0].score! > (items[1].score ?? -1));
  });

  it('expires items after their ttl and refreshes it on read', async () => {
    const ns = ['ttl', randomUUID()];
    const ttlMinutes = 0.005; // 300 ms
    await client.store.putItem(ns, 'short', { text: 'gone soon' }, { ttl: ttlMinutes });
    await client.store.putItem(ns, 'kept', { text: 'read often' }, { ttl: ttlMinutes });
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 120));
      assert.ok(await client.store.getItem(ns, 'kept'), 'a read restarts the time to live');
    }
    assert.equal(await client.store.getItem(ns, 'short'), null);
    assert.deepEqual(
      (await client.store.searchItems(ns)).items.map((i) => i.key),
      ['kept'],
    );
  });

  it('refuses namespace labels with a period and bad bodies with 422, storing nothing', async () => {
    const bad = await server.fetch(`${server.url}/store/items`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: ['a.b'], key: 'k', value: {} }),
    });
    assert.equal(bad.status, 422);
    const empty = await server.fetch(`${server.url}/store/items?namespace=a..b&key=k`);
    assert.equal(empty.status, 422);
    assert.deepEqual((await client.store.listNamespaces({ prefix: ['a.b'.split('.')[0]] })).namespaces, []);
  });

  it('refuses a ttl past any date (1e12 minutes) with 422, not 500, storing nothing; on threads too', async () => {
    const ns = ['huge-ttl', randomUUID()];
    const put = await server.fetch(`${server.url}/store/items`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: ns, key: 'k', value: { text: 'x' }, ttl: 1e12 }),
    });
    assert.equal(put.status, 422, await put.clone().text());
    assert.deepEqual(((await put.json()) as { detail: { loc: string[] }[] }).detail[0].loc, ['body', 'ttl']);
    assert.equal(await client.store.getItem(ns, 'k'), null);
    // the longest allowed (100 years) is stored
    await client.store.putItem(ns, 'long', { text: 'kept' }, { ttl: 52_596_000 });
    assert.deepEqual((await client.store.getItem(ns, 'long'))?.value, { text: 'kept' });

    const threadId = randomUUID();
    const created = await server.fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: threadId, ttl: { ttl: 1e12 } }),
    });
    assert.equal(created.status, 422, await created.text());
    assert.equal((await server.fetch(`${server.url}/threads/${threadId}`)).status, 404);
  });
});

describe('store items are kept apart per tenant when agent-server auth is on', () => {
  let server: InProcessApp;
  before(async () => {
    server = await areaApp('agent-server', {
      project: testProject,
      env: { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: `key-a:${randomUUID()},key-b:${randomUUID()}` },
    });
  });
  after(() => server.close());

  it("another tenant's items are invisible", async () => {
    const a = new Client({ apiUrl: server.url, apiKey: 'key-a', callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    const b = new Client({ apiUrl: server.url, apiKey: 'key-b', callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    await a.store.putItem(['notes'], 'secret', { text: 'tenant a only' });
    assert.ok(await a.store.getItem(['notes'], 'secret'));
    assert.equal(await b.store.getItem(['notes'], 'secret'), null);
    assert.deepEqual((await b.store.searchItems(['notes'])).items, []);
    assert.deepEqual((await b.store.listNamespaces()).namespaces, []);
    await b.store.deleteItem(['notes'], 'secret');
    assert.ok(await a.store.getItem(['notes'], 'secret'), "b's delete does not touch a's item");
  });
});
