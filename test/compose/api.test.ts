// An area composed over in-memory ports and served alone, in process, through the server's
// pipeline: the same auth, validation and reply checks as the whole application; the other
// areas' routes answer 404 as unknown routes do.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { composeControlPlane, createApi, memoryPorts, type Api } from '../../src/compose/index.ts';
import { githubBody } from '../control-plane/support.ts';

const KEY = 'area-key';
const auth = { apiKeys: `${KEY}:${randomUUID()}` };
const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };

describe('the control plane alone over memory ports', () => {
  let api: Api;
  before(async () => {
    const ports = await memoryPorts();
    api = await createApi(await composeControlPlane(ports), ports, auth);
  });
  after(() => api.close());

  it('creates and reads a deployment with a key of the tenant', async () => {
    const created = await api.request('/v2/deployments', { method: 'POST', headers, body: JSON.stringify(githubBody('alone')) });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    const read = await api.request(`/v2/deployments/${id}`, { headers });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { name: string }).name, 'alone');
  });

  it('refuses a call without a key, and a body the contract refuses, changing nothing', async () => {
    assert.equal((await api.request('/v2/deployments', { method: 'POST', body: '{}' })).status, 401);
    const bad = await api.request('/v2/deployments', { method: 'POST', headers, body: JSON.stringify({ name: 7 }) });
    assert.equal(bad.status, 422);
    assert.equal(typeof ((await bad.json()) as { detail: unknown }).detail, 'object');
  });

  it("answers the agent server's routes 404, as unknown routes", async () => {
    for (const [method, path] of [
      ['POST', '/assistants/search'],
      ['GET', '/ok'],
      ['GET', '/no/such/route'],
    ]) {
      const reply = await api.request(path, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) });
      assert.equal(reply.status, 404, path);
      assert.deepEqual(await reply.json(), { detail: 'Not Found' }, path);
    }
  });
});
