// The agent server composed alone over in-memory ports: a handler for each of its operations
// and none of A2A's, what A2A is built on, and served alone its routes answer while A2A's and
// the control plane's are 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { composeAgentServer, createApi, memoryPorts } from '../../../src/compose/index.ts';
import { areaOperations } from '../../../src/compose/area.ts';

test("the agent server alone: its operations' handlers, what A2A needs, and the others' routes 404", async () => {
  const ports = await memoryPorts();
  const area = await composeAgentServer(ports);
  assert.deepEqual(Object.keys(area.handlers).sort(), [...areaOperations('agent-server')].sort());
  assert.equal(typeof area.serviceFor, 'function');
  assert.equal(typeof area.runEnds.listen, 'function');
  const key = 'agent-key';
  const api = await createApi(area, ports, { apiKeys: `${key}:${randomUUID()}` });
  try {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const thread = await api.request('/threads', { method: 'POST', headers, body: '{}' });
    assert.equal(thread.status, 200);
    for (const path of ['/.well-known/agent-card.json', '/v2/deployments']) {
      const reply = await api.request(path, { headers });
      assert.equal(reply.status, 404, path);
      assert.deepEqual(await reply.json(), { detail: 'Not Found' }, path);
    }
  } finally {
    await api.close();
  }
});
