// Nothing acknowledged is lost: concurrent PATCHes serialise, and after kill -9 a restarted
// server on the same data directory has every change and finishes unfinished revisions.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { dockerBody, githubBody, json, keyedApi, waitForRevision, type Api } from '../../control-plane/support.ts';

const KEY = 'durability-key';
const TENANT = '33333333-3333-4333-8333-333333333333';
const env = (phaseMs: number) => ({ AGENTPLANE_API_KEYS: `${KEY}:${TENANT}`, AGENTPLANE_PHASE_MS: String(phaseMs) });

const client = (server: ChildServer): Api => keyedApi(KEY, () => server.url);

describe('control plane: durability', () => {
  const children: ChildServer[] = [];
  after(async () => {
    for (const child of children) await child.kill();
  });

  it('continues a revision to DEPLOYED after kill -9 mid-lifecycle, with every acknowledged change', async () => {
    const data = tempDir();
    const first = await spawnServer(['--data', data], env(150));
    children.push(first);
    let api = client(first);
    const created = await json(await api('/v2/deployments', { method: 'POST', json: githubBody('survivor') }), 201);
    // concurrent PATCHes to one deployment: each changes a different field, none may be lost
    const patches = await Promise.all([
      api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { install_command: 'npm ci' } } }),
      api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { build_command: 'npm run build' } } }),
      api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { build_on_push: false } } }),
      api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { secrets: [{ name: 'ROTATED', value: 'rotated-secret-9f2c' }] } }),
    ]);
    const replies = await Promise.all(patches.map((r) => json(r, 200)));
    const latest = replies[3].latest_revision_id;
    const other = await json(await api('/v2/deployments', { method: 'POST', json: dockerBody('survivor-image') }), 201);

    // wait until the revision is mid-lifecycle, then kill the server without warning
    let status = 'CREATING';
    while (status === 'CREATING' || status === 'QUEUED') {
      await sleep(20);
      status = (await json(await api(`/v2/deployments/${created.id}/revisions/${latest}`), 200)).status;
    }
    assert.notEqual(status, 'DEPLOYED');
    await first.kill('SIGKILL');

    const second = await spawnServer(['--data', data], env(5));
    children.push(second);
    api = client(second);
    const deployment = await json(await api(`/v2/deployments/${created.id}`), 200);
    assert.equal(deployment.latest_revision_id, latest);
    assert.equal(deployment.source_config.install_command, 'npm ci');
    assert.equal(deployment.source_config.build_command, 'npm run build');
    assert.equal(deployment.source_config.build_on_push, false);
    assert.deepEqual(deployment.secrets, [{ name: 'ROTATED', value: '********' }]);
    assert.equal((await waitForRevision(api, created.id, latest)).status, 'DEPLOYED');
    assert.equal((await waitForRevision(api, other.id, other.latest_revision_id)).status, 'DEPLOYED');
    const done = await json(await api(`/v2/deployments/${created.id}`), 200);
    assert.equal(done.status, 'READY');
    assert.equal(done.active_revision_id, latest);
    // the secret value was never written to the log
    for (const out of [first.output(), second.output()]) assert.ok(!out.includes('rotated-secret-9f2c') && !out.includes('sk-proj-4f9c2e7a1b'));
    await second.kill('SIGTERM');
  });
});
