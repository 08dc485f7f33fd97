// Assistants are configuration profiles, as on the upstream server: a run executes with its
// assistant's config (configurable included) and context under the request's, whichever
// way it was started; a graph factory is called with the merged config; the system
// assistants take their defaults from LANGGRAPH_CONFIG (which langgraph.json's `env` may
// set); and every checkpoint a run writes carries the run's ids and metadata, so history
// can be filtered by them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT, tempDir, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/agent-server/profiles.ts');
const say = (content: string) => ({ messages: [{ role: 'user', content }] });
type Messages = { messages: { type: string; content: string }[] };
const lastText = (values: unknown) => String((values as Messages).messages.at(-1)?.content);
/** What the fixture graphs answer: the model and tone they were configured with, and their context. */
const seen = (model: string | null, tone: string | null, context: unknown) => JSON.stringify({ model, tone, context });

const profile = { config: { configurable: { model: 'a', tone: 'dry' } }, context: { user_key: 'k1', shade: 'blue' } };

describe('assistants as configuration profiles', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('a2a', {
      project: { graphs: { configured: `${FIXTURE}:configured`, made: `${FIXTURE}:made`, plain: `${FIXTURE}:plainConfigured` } },
      dataDir: null,
    });
    client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, fetch: server.fetch } });
  });
  after(() => server.close());

  it("merges the assistant's config and context under the request's for thread and stateless runs, streams and batches", async () => {
    for (const graphId of ['configured', 'plain']) {
      const assistant = await client.assistants.create({ graphId, ...profile });
      const thread = await client.threads.create();
      const request = { config: { configurable: { tone: 'warm' } }, context: { shade: 'red' } };
      const waited = await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: say('hi'), ...request });
      assert.equal(lastText(waited), seen('a', 'warm', { user_key: 'k1', shade: 'red' }), graphId);
      // the thread keeps the configurable of its runs (between the assistant's and the request's,
      // with the caller's user-agent, Node's fetch's here), as upstream's
      assert.deepEqual((await client.threads.get(thread.thread_id)).config, { configurable: { model: 'a', tone: 'warm', 'user-agent': 'node' } });
      const later = await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: say('again') });
      assert.equal(lastText(later), seen('a', 'warm', { user_key: 'k1', shade: 'blue' }), graphId);

      let streamed: unknown;
      for await (const chunk of client.runs.stream(null, assistant.assistant_id, { input: say('hi'), streamMode: 'values' }))
        if (chunk.event === 'values') streamed = chunk.data;
      assert.equal(lastText(streamed), seen('a', 'dry', { user_key: 'k1', shade: 'blue' }), graphId);

      // kept, so it can be joined after it ended (the SDK types on_completion wrongly)
      const [batched] = await client.runs.createBatch([
        { assistantId: assistant.assistant_id, input: say('hi'), context: { user_key: 'k2' }, onCompletion: 'keep' as never },
      ]);
      const joined = await client.runs.join(batched.thread_id, batched.run_id);
      assert.equal(lastText(joined), seen('a', 'dry', { user_key: 'k2', shade: 'blue' }), graphId);
    }
  });

  it('does so for runs started by crons, A2A and MCP too', async () => {
    const assistant = await client.assistants.create({ graphId: 'configured', name: 'profiled', ...profile });
    const expected = seen('a', 'dry', { user_key: 'k1', shade: 'blue' });

    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, assistant.assistant_id, { schedule: '* * * * * *', input: say('tick') });
    let fired: string | undefined;
    while (!fired) {
      const [run] = await client.runs.list(thread.thread_id, { status: 'success' });
      if (run) fired = run.run_id;
      else await new Promise((r) => setTimeout(r, 100));
    }
    await client.crons.delete(cron.cron_id);
    assert.equal(lastText(await client.runs.join(thread.thread_id, fired)), expected);

    const a2a = await server.fetch(`${server.url}/a2a/${assistant.assistant_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    const task = (await a2a.json()) as { result: { artifacts: { parts: { text: string }[] }[] } };
    assert.equal(task.result.artifacts[0].parts[0].text, expected);

    const mcp = new McpClient({ name: 'agentplane-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch: server.fetch }));
    try {
      const result = await mcp.callTool({ name: 'profiled', arguments: say('hi') });
      assert.deepEqual(result.content, [{ type: 'text', text: expected }]);
    } finally {
      await mcp.close();
    }
  });

  it('calls a graph factory with the merged config', async () => {
    const assistant = await client.assistants.create({ graphId: 'made', config: { configurable: { model: 'm2' } } });
    const result = await client.runs.wait(null, assistant.assistant_id, { input: say('x'), config: { configurable: { tone: 'sharp' } } });
    assert.equal(lastText(result), `factory saw ${seen('m2', 'sharp', null)}`);
  });

  it("writes the run's ids and metadata into every checkpoint, so history filters find them", async () => {
    for (const graphId of ['configured', 'plain']) {
      const assistant = await client.assistants.create({ graphId, ...profile, metadata: { team: 'x' } });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, assistant.assistant_id, { input: say('hi'), metadata: { purpose: 'audit' } });
      // the run's metadata is the assistant's, the thread's and the request's, as upstream's
      assert.deepEqual(run.metadata, { team: 'x', graph_id: graphId, assistant_id: assistant.assistant_id, purpose: 'audit' });
      await client.runs.join(thread.thread_id, run.run_id);
      const history = await client.threads.getHistory(thread.thread_id);
      assert.ok(history.length >= 2, graphId);
      for (const state of history) {
        assert.deepEqual(
          {
            ...state.metadata,
            source: undefined,
            step: undefined,
            parents: undefined,
            writes: undefined,
            langgraph_version: undefined,
            ls_integration: undefined,
          },
          {
            ...state.metadata,
            ...{ source: undefined, step: undefined, parents: undefined, writes: undefined, langgraph_version: undefined, ls_integration: undefined },
            run_id: run.run_id,
            thread_id: thread.thread_id,
            graph_id: graphId,
            assistant_id: assistant.assistant_id,
            model: 'a',
            tone: 'dry',
            team: 'x',
            purpose: 'audit',
            run_attempt: 1,
            langgraph_plan: 'developer',
            langgraph_host: 'self-hosted',
          },
          graphId,
        );
      }
      assert.equal((await client.threads.getHistory(thread.thread_id, { metadata: { run_id: run.run_id } })).length, history.length, graphId);
      assert.equal(
        (await client.threads.getHistory(thread.thread_id, { metadata: { purpose: 'audit', assistant_id: assistant.assistant_id } })).length,
        history.length,
        graphId,
      );
      assert.equal((await client.threads.getHistory(thread.thread_id, { metadata: { purpose: 'other' } })).length, 0, graphId);
    }
  });
});

/** A langgraph.json project of the fixture graphs (read as upstream reads it: function exports are factories). */
function langgraphProject(project: Record<string, unknown>): Record<string, string> {
  const file = path.join(tempDir(), 'langgraph.json');
  fs.writeFileSync(file, JSON.stringify(project));
  return { AGENTPLANE_CONFIG: file };
}

describe('graph factories', () => {
  it("reads a thread's state through the graph its factory makes for the thread's config", async () => {
    const server = await areaApp('a2a', { dataDir: null, env: langgraphProject({ graphs: { noted: `${FIXTURE}:noted` } }) });
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, fetch: server.fetch } });
      const assistant = await client.assistants.create({ graphId: 'noted', config: { configurable: { with_note: true } } });
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: say('x') });
      const state = await client.threads.getState(thread.thread_id);
      assert.equal((state.values as { note?: string }).note, 'kept');
      assert.equal(((await client.threads.getHistory(thread.thread_id))[0].values as { note?: string }).note, 'kept');
    } finally {
      await server.close();
    }
  });
});

describe('LANGGRAPH_CONFIG', () => {
  it('gives the system assistants their config and context, set from langgraph.json env', async () => {
    const defaults = { configured: { configurable: { model: 'sys-model' }, context: { user_key: 'sys' } }, made: { configurable: { model: 'sys-made' } } };
    const env = langgraphProject({
      graphs: { configured: `${FIXTURE}:configured`, made: `${FIXTURE}:made` },
      env: { LANGGRAPH_CONFIG: JSON.stringify(defaults) },
    });
    const server = await areaApp('a2a', { dataDir: null, env });
    try {
      const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0, fetch: server.fetch } });
      const [system] = await client.assistants.search({ graphId: 'configured', metadata: { created_by: 'system' } });
      assert.deepEqual([system.config, system.context], [{ configurable: { model: 'sys-model' } }, { user_key: 'sys' }]);
      assert.equal(lastText(await client.runs.wait(null, 'configured', { input: say('x') })), seen('sys-model', null, { user_key: 'sys' }));
      assert.equal(lastText(await client.runs.wait(null, 'made', { input: say('x') })), `factory saw ${seen('sys-made', null, null)}`);
    } finally {
      await server.close();
    }
  });

  it('stops the start with a clear message when it is not an object of objects', async () => {
    for (const bad of ['{not json', '[]', '{"configured": 3}']) {
      await assert.rejects(areaApp('a2a', { dataDir: null, env: { LANGGRAPH_CONFIG: bad } }), /LANGGRAPH_CONFIG must be a JSON object/);
    }
  });
});
