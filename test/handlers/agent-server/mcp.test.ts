// /mcp through the official MCP client (@modelcontextprotocol/sdk, streamable HTTP):
// assistants are listed as tools with their input schemas, and calling one runs its graph.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

/** The MCP client on the app's /mcp, its requests through the app's fetch (the transport's `fetch` option). */
async function connect(app: InProcessApp): Promise<Client> {
  const client = new Client({ name: 'agentplane-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { fetch: app.fetch }));
  return client;
}

describe('MCP endpoint', () => {
  let server: InProcessApp;
  before(async () => {
    server = await areaApp('agent-server', { project: testProject });
  });
  after(() => server.close());

  it('lists every assistant as a tool and runs one', async () => {
    const client = await connect(server);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(testProject.graphs!).sort());
    const echo = tools.find((t) => t.name === 'echo')!;
    assert.equal(echo.inputSchema.type, 'object');
    assert.ok(echo.inputSchema.properties && 'messages' in echo.inputSchema.properties);

    const result = await client.callTool({ name: 'echo', arguments: { messages: [{ role: 'user', content: 'hello over mcp' }] } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello over mcp' }]);
    const output = result.structuredContent as { messages: { type: string; content: string }[] };
    assert.deepEqual(
      output.messages.map((m) => `${m.type}:${m.content}`),
      ['human:hello over mcp', 'ai:hello over mcp'],
    );

    const agent = await client.callTool({ name: 'agent', arguments: { messages: [{ role: 'user', content: 'What is 2 + 2?' }] } });
    assert.ok(!agent.isError);
    assert.match(String((agent.content as { text: string }[])[0].text), /4/);

    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    assert.equal(unknown.isError, true);
    await client.close();
  });

  it('leaves no temporary threads behind', async () => {
    const threads = await (await server.api('/threads/search', { method: 'POST', json: { limit: 100 } })).json();
    assert.deepEqual(threads, []);
  });

  it('answers GET with 405 and is 404 when http.disable_mcp is set', async () => {
    assert.equal((await server.fetch(`${server.url}/mcp`)).status, 405);
    const disabled = await areaApp('agent-server', { project: { ...testProject, http: { disable_mcp: true } } });
    try {
      const res = await disabled.fetch(`${disabled.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(res.status, 404);
    } finally {
      await disabled.close();
    }
  });
});
