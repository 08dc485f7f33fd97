// Every public method of @langchain/langgraph-sdk's client.assistants against agentplane,
// with both shipped graphs (echo, a plain function; agent, a LangGraph graph).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

describe('client.assistants against agentplane', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', { project: testProject });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
  });
  after(() => server.close());

  for (const graphId of ['echo', 'agent']) {
    it(`create, get, update (versions), setLatest, search, count, delete — ${graphId}`, async () => {
      const created = await client.assistants.create({
        graphId,
        name: `${graphId} helper`,
        config: { configurable: { tone: 'friendly' } },
        metadata: { team: 'support', graph: graphId },
      });
      assert.equal(created.graph_id, graphId);
      assert.equal(created.version, 1);
      assert.deepEqual((await client.assistants.get(created.assistant_id)).name, `${graphId} helper`);
      // if_exists
      await assert.rejects(client.assistants.create({ graphId, assistantId: created.assistant_id }), /409/);
      assert.equal((await client.assistants.create({ graphId, assistantId: created.assistant_id, ifExists: 'do_nothing' })).assistant_id, created.assistant_id);

      const updated = await client.assistants.update(created.assistant_id, { metadata: { stage: 'beta' }, config: { configurable: { tone: 'formal' } } });
      assert.equal(updated.version, 2);
      assert.deepEqual(updated.metadata, { team: 'support', graph: graphId, stage: 'beta' }, 'metadata is merged');
      const versions = await client.assistants.getVersions(created.assistant_id);
      assert.deepEqual(
        versions.map((v) => v.version),
        [2, 1],
      );
      const back = await client.assistants.setLatest(created.assistant_id, 1);
      assert.equal(back.version, 1);
      assert.deepEqual(back.config, { configurable: { tone: 'friendly' } });

      const found = await client.assistants.search({ metadata: { graph: graphId }, select: ['assistant_id', 'name'] });
      assert.deepEqual(found, [{ assistant_id: created.assistant_id, name: `${graphId} helper` }]);
      assert.equal(await client.assistants.count({ metadata: { graph: graphId } }), 1);
      assert.equal(await client.assistants.count({ graphId }), 2, 'the system assistant and this one');

      // the assistant runs its own config
      const thread = await client.threads.create();
      const run = await client.runs.wait(thread.thread_id, created.assistant_id, { input: { messages: [{ role: 'user', content: 'hi' }] } });
      assert.ok(Array.isArray((run as { messages: unknown[] }).messages));

      await client.assistants.delete(created.assistant_id);
      await assert.rejects(client.assistants.get(created.assistant_id), /404/);
      await assert.rejects(client.assistants.delete(created.assistant_id), /404/);
    });

    it(`delete with deleteThreads takes the threads its runs were on, and only those — ${graphId}`, async () => {
      const assistant = await client.assistants.create({ graphId });
      const used = await client.threads.create();
      await client.runs.wait(used.thread_id, assistant.assistant_id, { input: { messages: [{ role: 'user', content: 'hi' }] } });
      const other = await client.threads.create();
      await client.runs.wait(other.thread_id, graphId, { input: { messages: [{ role: 'user', content: 'hi' }] } });
      const kept = await client.assistants.create({ graphId });
      const keptThread = await client.threads.create();
      await client.runs.wait(keptThread.thread_id, kept.assistant_id, { input: { messages: [{ role: 'user', content: 'hi' }] } });

      await client.assistants.delete(kept.assistant_id);
      assert.equal((await client.threads.get(keptThread.thread_id)).thread_id, keptThread.thread_id, 'without the flag the threads stay');
      await client.assistants.delete(assistant.assistant_id, { deleteThreads: true });
      await assert.rejects(client.threads.get(used.thread_id), /404/);
      assert.equal((await client.threads.get(other.thread_id)).thread_id, other.thread_id, 'another assistant’s thread stays');
    });

    it(`getGraph, getSchemas, getSubgraphs — ${graphId}`, async () => {
      const drawing = await client.assistants.getGraph(graphId);
      const ids = drawing.nodes.map((n) => n.id);
      assert.ok(ids.includes('__start__') && ids.includes('__end__'));
      assert.ok(drawing.edges.some((e) => e.source === '__start__'));
      const xray = await client.assistants.getGraph(graphId, { xray: true });
      assert.ok(xray.nodes.length >= drawing.nodes.length);
      const schemas = await client.assistants.getSchemas(graphId);
      assert.equal(schemas.graph_id, graphId);
      assert.ok((schemas.state_schema as { properties: Record<string, unknown> }).properties.messages, 'messages is part of the state');
      assert.deepEqual(await client.assistants.getSubgraphs(graphId), {});
      assert.deepEqual(await client.assistants.getSubgraphs(graphId, { namespace: 'tools', recurse: true }), {});
    });
  }

  it('answers 404 for an unknown graph or assistant, and pages with X-Pagination-Next', async () => {
    await assert.rejects(client.assistants.create({ graphId: 'nope' }), /404/);
    await assert.rejects(client.assistants.update('0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10', { metadata: {} }), /404/);
    await assert.rejects(client.assistants.getGraph('0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10'), /404/);
    const page = await client.assistants.search({ limit: 1, includePagination: true } as never);
    assert.equal((page as unknown as { next: string | null }).next, '1');
  });
});
