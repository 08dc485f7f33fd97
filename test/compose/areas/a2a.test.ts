// A2A composed over the agent server it is built on, without the control plane, served alone
// in process: the agent server's and A2A's operations answer, the control plane's are 404.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { composeA2A, composeAgentServer, createApi, memoryPorts, type Api } from '../../../src/compose/index.ts';
import { areaOperations } from '../../../src/compose/area.ts';

const KEY = 'area-key';
const auth = { apiKeys: `${KEY}:${randomUUID()}` };
const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };

describe('A2A over the agent server, without the control plane', () => {
  let api: Api;
  before(async () => {
    const ports = await memoryPorts();
    const agentServer = await composeAgentServer(ports);
    api = await createApi([agentServer, await composeA2A(ports, agentServer)], ports, auth);
  });
  after(() => api.close());

  it('composes a handler for each A2A operation and the JSON-RPC methods', async () => {
    const ports = await memoryPorts();
    try {
      const area = await composeA2A(ports, await composeAgentServer(ports));
      assert.deepEqual(Object.keys(area.handlers).sort(), [...areaOperations('a2a')].sort());
      assert.equal(typeof area.methods?.['message/send'], 'function');
    } finally {
      await ports.close();
    }
  });

  it("serves the agent server's and A2A's operations; the control plane's are 404", async () => {
    assert.equal((await api.request('/ok')).status, 200);
    const created = await api.request('/assistants', { method: 'POST', headers, body: JSON.stringify({ graph_id: 'none' }) });
    assert.equal(created.status, 404, 'no graph of that id: the agent server answers, not the router');
    assert.match(((await created.json()) as { detail: string }).detail, /graph/i);
    const rpc = await api.request('/a2a/none', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 't' } }),
    });
    // the A2A area answers: no such assistant (not the router's bare 404)
    assert.equal(rpc.status, 404);
    assert.notDeepEqual(await rpc.json(), { detail: 'Not Found' });
    const deployments = await api.request('/v2/deployments', { headers });
    assert.equal(deployments.status, 404);
    assert.deepEqual(await deployments.json(), { detail: 'Not Found' });
  });
});
