// A CI/CD pipeline played end to end against the real server, as upstream clients do it:
// create → poll the latest revision until DEPLOYED → patch → poll → list → redeploy → delete.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { create, dockerBody, githubBody, json, waitForRevision, waitUntilGone } from './support.ts';

describe('control plane: a CI/CD pipeline', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('creates, deploys, patches, lists, redeploys and deletes a deployment', async () => {
    const api = server.api;
    const created = await create(api, githubBody('pipeline-agent'));
    assert.equal(created.status, 'AWAITING_DATABASE');
    assert.equal(created.active_revision_id, null);
    assert.equal(created.secrets[0].value, '********');
    const first = await waitForRevision(api, created.id, created.latest_revision_id);
    assert.equal(first.status, 'DEPLOYED');
    assert.match(first.source_revision_config.repo_commit_sha, /^[0-9a-f]{40}$/);

    const ready = await json(await api(`/v2/deployments/${created.id}`), 200);
    assert.equal(ready.status, 'READY');
    assert.equal(ready.active_revision_id, first.id);
    assert.deepEqual(ready.source_revision_config, first.source_revision_config);

    // the upstream docs example patches with langgraph_config_path
    const patched = await json(
      await api(`/v2/deployments/${created.id}`, {
        method: 'PATCH',
        json: { source_config: { build_on_push: true }, source_revision_config: { repo_ref: 'release-2025-06', langgraph_config_path: 'langgraph.json' } },
      }),
      200,
    );
    assert.notEqual(patched.latest_revision_id, first.id);
    assert.equal(patched.active_revision_id, first.id);
    assert.equal(patched.source_revision_config.repo_ref, 'release-2025-06');
    const second = await waitForRevision(api, created.id, patched.latest_revision_id);
    assert.equal(second.status, 'DEPLOYED');

    const revisions = await json(await api(`/v2/deployments/${created.id}/revisions`), 200);
    assert.deepEqual(revisions.resources.map((r: any) => r.id), [second.id, first.id]);
    assert.equal(revisions.offset, 2);
    const latestOnly = await json(await api(`/v2/deployments/${created.id}/revisions?limit=1`), 200);
    assert.equal(latestOnly.resources[0].id, second.id);

    // the CLI looks a deployment up by name_contains, then compares the exact name
    const byName = await json(await api('/v2/deployments?name_contains=PIPELINE'), 200);
    assert.deepEqual(byName.resources.map((d: any) => d.name), ['pipeline-agent']);

    const redeployed = await json(await api(`/v2/deployments/${created.id}/revisions/${first.id}/redeploy`, { method: 'POST' }), 200);
    assert.equal(redeployed.source_revision_config.repo_ref, 'main');
    const third = await waitForRevision(api, created.id, redeployed.latest_revision_id);
    assert.equal(third.status, 'DEPLOYED');
    assert.equal(third.source_revision_config.repo_commit_sha, first.source_revision_config.repo_commit_sha);
    const deployed = await json(await api(`/v2/deployments/${created.id}`), 200);
    assert.equal(deployed.active_revision_id, third.id);

    assert.equal((await api(`/v2/deployments/${created.id}`, { method: 'DELETE' })).status, 204);
    const deleting = await api(`/v2/deployments/${created.id}`);
    if (deleting.status === 200) assert.equal(((await deleting.json()) as any).status, 'AWAITING_DELETE');
    else await deleting.body?.cancel();
    await waitUntilGone(api, created.id);
    assert.deepEqual(await json(await api(`/v2/deployments/${created.id}`), 404), { detail: `Deployment ID ${created.id} not found.` });
  });

  it('reports a failing build and keeps the previous revision serving', async () => {
    const api = server.api;
    const created = await create(api, githubBody('failing-build'));
    const good = await waitForRevision(api, created.id, created.latest_revision_id);
    assert.equal(good.status, 'DEPLOYED');
    const patched = await json(
      await api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { build_command: 'npm run build && fail' }, source_revision_config: { repo_ref: 'broken' } } }),
      200,
    );
    const failed = await waitForRevision(api, created.id, patched.latest_revision_id);
    assert.equal(failed.status, 'BUILD_FAILED');
    assert.match(failed.status_message, /npm run build && fail/);
    const after = await json(await api(`/v2/deployments/${created.id}`), 200);
    assert.equal(after.active_revision_id, good.id);
    const failures = await json(await api(`/v2/deployments/${created.id}/revisions?status=BUILD_FAILED,DEPLOY_FAILED`), 200);
    assert.deepEqual(failures.resources.map((r: any) => r.id), [failed.id]);
    const refused = await json(await api(`/v2/deployments/${created.id}/revisions/${failed.id}/redeploy`, { method: 'POST' }), 400);
    assert.match(refused.detail, /BUILD_FAILED/);
  });

  it('fails the deploy of an image the deployer cannot pull; image sources skip the build', async () => {
    const api = server.api;
    const created = await create(api, dockerBody('failing-image', 'registry.acme.internal/agents/my-agent:fail'));
    const failed = await waitForRevision(api, created.id, created.latest_revision_id);
    assert.equal(failed.status, 'DEPLOY_FAILED');
    assert.match(failed.status_message, /my-agent:fail/);
    assert.equal((await json(await api(`/v2/deployments/${created.id}`), 200)).active_revision_id, null);

    // the official CI script: patch image_uri, expect 200, poll
    const patched = await json(await api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: 'registry.acme.internal/agents/my-agent:1.5.0' } } }), 200);
    const fixed = await waitForRevision(api, created.id, patched.latest_revision_id);
    assert.equal(fixed.status, 'DEPLOYED');
    assert.equal(fixed.source_revision_config.repo_commit_sha, null);
  });
});
