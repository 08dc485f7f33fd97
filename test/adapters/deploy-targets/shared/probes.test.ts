// The local deployer's check that a server it started loaded every graph of its project asks
// the server's POST /assistants/search. A deployed server answers its tenant's keys only
// (issue 83), and the deployer holds none: the check got 401 and was skipped, so a server
// that started with fewer graphs than its project lists went on serving. The deployer now
// makes a probe key for each server it starts and gives the server its digest alone, valid
// for a tenant of the probe's own: the check runs, and the probe reads nothing of the
// deployment's tenant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { missingGraphs, newProbeKey } from '../../../../src/adapters/deploy-targets/shared/probes.ts';
import { deployedServerAuthEnv } from '../../../../src/domain/control-plane/deployer/deployedServerAuth.ts';
import { keyDigest } from '../../../../src/runtime/security/auth.ts';
import { areaApp } from '../../../support/area.ts';

test('a deployed server with auth on that lacks a graph of its project is caught with the probe key, which reads nothing of the tenant', async () => {
  const tenant = randomUUID();
  const tenantKey = `tenant-key-${randomUUID()}`;
  const probe = newProbeKey();
  const env = deployedServerAuthEnv(tenant, () => [keyDigest(tenantKey)], probe);
  assert.ok(!env.AGENTPLANE_API_KEY_DIGESTS.includes(`${probe.digest}:${tenant}`), "the probe's digest is never bound to the deployment's tenant");
  assert.ok(!Object.values(env).join(',').includes(probe.key), 'the server is given the digest, never the key');
  // the server as a deployer starts it: the tenant's digests and the probe's, no key of its own;
  // it serves `echo` alone while its project lists `absent` too
  const server = await areaApp('agent-server', { env: { ...env, AGENTPLANE_API_KEYS: '' } });
  try {
    const project = ['echo', 'absent'];
    assert.deepEqual(await missingGraphs(server.url, project, probe.key, server.fetch), ['absent']);
    assert.deepEqual(await missingGraphs(server.url, ['echo'], probe.key, server.fetch), []);
    // without the probe key the server refuses the look, and the deployer cannot tell
    const anonymous = await server.fetch('/assistants/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(anonymous.status, 401);

    // the tenant's thread is not the probe's to see
    const asTenant = { 'x-api-key': tenantKey, 'content-type': 'application/json' };
    const asProbe = { 'x-api-key': probe.key, 'content-type': 'application/json' };
    const thread = (await (await server.fetch('/threads', { method: 'POST', headers: asTenant, body: '{}' })).json()) as { thread_id: string };
    assert.equal((await server.fetch(`/threads/${thread.thread_id}`, { headers: asProbe })).status, 404);
    assert.deepEqual(await (await server.fetch('/threads/search', { method: 'POST', headers: asProbe, body: '{}' })).json(), []);
    // nor may the probe act for the tenant by naming it
    assert.equal((await server.fetch(`/threads/${thread.thread_id}`, { headers: { ...asProbe, 'x-tenant-id': tenant } })).status, 403);
  } finally {
    await server.close();
  }
});
