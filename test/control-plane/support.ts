// Shared by the control-plane tests: request bodies and polling as a CI pipeline does it.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

export type Api = (pathname: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

/** Requests with an API key, each to the base URL `baseUrl()` names at the time (one server, or the next of several). */
export function keyedApi(key: string, baseUrl: () => string): Api {
  return (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('x-api-key', key);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(baseUrl() + pathname, { ...init, headers, body });
  };
}

export const githubBody = (name: string, extra: { build_command?: string } = {}) => ({
  name,
  source: 'github',
  source_config: { repo_url: 'https://github.com/acme/my-agent', deployment_type: 'dev', build_on_push: true, resource_spec: null, ...extra },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
  secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-proj-4f9c2e7a1b' }],
});

export const dockerBody = (name: string, image = 'registry.acme.internal/agents/my-agent:1.4.2') => ({
  name,
  source: 'external_docker',
  source_config: { custom_url: 'https://agents.acme.internal/' + name },
  source_revision_config: { image_uri: image },
});

const FINAL = new Set(['DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'SKIPPED', 'INTERRUPTED']);

/** Polls a revision of the local deployer (a real build and start) until it reaches a final status; `context` tells what went wrong. */
export async function waitForRealRevision(api: Api, deploymentId: string, revisionId: string, context: () => string = () => ''): Promise<Record<string, any>> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const revision = await json(await api(`/v2/deployments/${deploymentId}/revisions/${revisionId}`), 200);
    if (FINAL.has(revision.status)) return revision;
    if (Date.now() > deadline) assert.fail(`revision ${revisionId} stuck in ${revision.status}:\n${context()}`);
    await sleep(100);
  }
}

/** Polls the revision like the upstream docs example, until it reaches a final status. */
export async function waitForRevision(api: Api, deploymentId: string, revisionId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 2000; i += 1) {
    const res = await api(`/v2/deployments/${deploymentId}/revisions/${revisionId}`);
    assert.equal(res.status, 200);
    const revision = (await res.json()) as Record<string, any>;
    if (FINAL.has(revision.status)) return revision;
    await sleep(5);
  }
  throw new Error(`revision ${revisionId} did not finish`);
}

export async function json(res: Response, status: number): Promise<any> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return text ? JSON.parse(text) : undefined;
}

export async function create(api: Api, body: unknown): Promise<any> {
  return json(await api('/v2/deployments', { method: 'POST', json: body }), 201);
}

/** Polls until the deployment is gone: a wall-clock budget, as a delete on podman beside an image build (CI's containers step runs three files at once) takes tens of seconds. */
export async function waitUntilGone(api: Api, deploymentId: string, ms = 120_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const res = await api(`/v2/deployments/${deploymentId}`);
    await res.body?.cancel();
    if (res.status === 404) return;
    await sleep(5);
  }
  throw new Error(`deployment ${deploymentId} was not removed`);
}

// The CI/CD pipeline (pipeline.test.ts), played against one server or several (replicas.test.ts).

/** create → poll the latest revision until DEPLOYED → patch → poll → list → redeploy → delete. */
export async function pipelineFlow(api: Api): Promise<void> {
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
  assert.deepEqual(
    revisions.resources.map((r: any) => r.id),
    [second.id, first.id],
  );
  assert.equal(revisions.offset, 2);
  const latestOnly = await json(await api(`/v2/deployments/${created.id}/revisions?limit=1`), 200);
  assert.equal(latestOnly.resources[0].id, second.id);

  // the CLI looks a deployment up by name_contains, then compares the exact name
  const byName = await json(await api('/v2/deployments?name_contains=PIPELINE'), 200);
  assert.deepEqual(
    byName.resources.map((d: any) => d.name),
    ['pipeline-agent'],
  );

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
}

/** A failing build is reported and the previous revision keeps serving. */
export async function failingBuildFlow(api: Api): Promise<void> {
  const created = await create(api, githubBody('failing-build'));
  const good = await waitForRevision(api, created.id, created.latest_revision_id);
  assert.equal(good.status, 'DEPLOYED');
  const patched = await json(
    await api(`/v2/deployments/${created.id}`, {
      method: 'PATCH',
      json: { source_config: { build_command: 'npm run build && fail' }, source_revision_config: { repo_ref: 'broken' } },
    }),
    200,
  );
  const failed = await waitForRevision(api, created.id, patched.latest_revision_id);
  assert.equal(failed.status, 'BUILD_FAILED');
  assert.match(failed.status_message, /npm run build && fail/);
  const after = await json(await api(`/v2/deployments/${created.id}`), 200);
  assert.equal(after.active_revision_id, good.id);
  const failures = await json(await api(`/v2/deployments/${created.id}/revisions?status=BUILD_FAILED,DEPLOY_FAILED`), 200);
  assert.deepEqual(
    failures.resources.map((r: any) => r.id),
    [failed.id],
  );
  const refused = await json(await api(`/v2/deployments/${created.id}/revisions/${failed.id}/redeploy`, { method: 'POST' }), 400);
  assert.match(refused.detail, /BUILD_FAILED/);
}

/** An image the deployer cannot pull fails the deploy; image sources skip the build. */
export async function failingImageFlow(api: Api): Promise<void> {
  const created = await create(api, dockerBody('failing-image', 'registry.acme.internal/agents/my-agent:fail'));
  const failed = await waitForRevision(api, created.id, created.latest_revision_id);
  assert.equal(failed.status, 'DEPLOY_FAILED');
  assert.match(failed.status_message, /my-agent:fail/);
  assert.equal((await json(await api(`/v2/deployments/${created.id}`), 200)).active_revision_id, null);

  // the official CI script: patch image_uri, expect 200, poll
  const patched = await json(
    await api(`/v2/deployments/${created.id}`, {
      method: 'PATCH',
      json: { source_revision_config: { image_uri: 'registry.acme.internal/agents/my-agent:1.5.0' } },
    }),
    200,
  );
  const fixed = await waitForRevision(api, created.id, patched.latest_revision_id);
  assert.equal(fixed.status, 'DEPLOYED');
  assert.equal(fixed.source_revision_config.repo_commit_sha, null);
}
