// Intermediate states, observed on a server whose phases never end during the test
// (AGENTPLANE_PHASE_MS=60000), so nothing here depends on timing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { create, dockerBody, githubBody, json } from '../../control-plane/support.ts';

describe('control plane: states before the deployer moves on', () => {
  let server: InProcessApp;
  before(async () => (server = await areaApp('control-plane', { env: { AGENTPLANE_PHASE_MS: '60000' } })));
  after(() => server.close());

  it('starts in AWAITING_DATABASE with a CREATING revision', async () => {
    const created = await create(server.api, githubBody('waiting'));
    assert.equal(created.status, 'AWAITING_DATABASE');
    const revision = await json(await server.api(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`), 200);
    assert.equal(revision.status, 'CREATING');
    assert.equal(revision.deployment_id, created.id);
    assert.equal(revision.source_revision_config.repo_commit_sha, null);
  });

  it('skips a revision that had not started when a newer one is created', async () => {
    const created = await create(server.api, dockerBody('superseded'));
    const patched = await json(
      await server.api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: 'img:2' } } }),
      200,
    );
    const revisions = await json(await server.api(`/v2/deployments/${created.id}/revisions`), 200);
    assert.deepEqual(
      revisions.resources.map((r: any) => [r.id, r.status]),
      [
        [patched.latest_revision_id, 'CREATING'],
        [created.latest_revision_id, 'SKIPPED'],
      ],
    );
    const skipped = await json(await server.api(`/v2/deployments/${created.id}/revisions?status=SKIPPED`), 200);
    assert.equal(skipped.resources.length, 1);
  });

  it('keeps a deleted deployment readable in AWAITING_DELETE until cleanup; force removes it', async () => {
    const doomed = await create(server.api, dockerBody('doomed'));
    const force = await json(await server.api(`/v2/deployments/${doomed.id}?force=true`, { method: 'DELETE' }), 400);
    assert.match(force.detail, /force is only allowed for a deployment in AWAITING_DELETE/);
    await json(await server.api(`/v2/deployments/${doomed.id}`, { method: 'DELETE' }), 204);
    assert.equal((await json(await server.api(`/v2/deployments/${doomed.id}`), 200)).status, 'AWAITING_DELETE');
    const listed = await json(await server.api('/v2/deployments?status=AWAITING_DELETE'), 200);
    assert.deepEqual(
      listed.resources.map((d: any) => d.id),
      [doomed.id],
    );
    const refused = await json(await server.api(`/v2/deployments/${doomed.id}`, { method: 'PATCH', json: { source_config: { install_command: 'x' } } }), 400);
    assert.equal(refused.detail, `Deployment ID ${doomed.id} is being deleted and cannot be updated.`);
    await json(await server.api('/v2/deployments', { method: 'POST', json: dockerBody('doomed') }), 409);
    await json(await server.api(`/v2/deployments/${doomed.id}`, { method: 'DELETE' }), 204);
    await json(await server.api(`/v2/deployments/${doomed.id}?force=true`, { method: 'DELETE' }), 204);
    await json(await server.api(`/v2/deployments/${doomed.id}`), 404);
    await json(await server.api(`/v2/deployments/${doomed.id}/revisions/${doomed.latest_revision_id}`), 404);
    await create(server.api, dockerBody('doomed'));
  });
});
