// Shared by the control-plane tests: request bodies and polling as a CI pipeline does it.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

export type Api = (pathname: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

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

export async function waitUntilGone(api: Api, deploymentId: string): Promise<void> {
  for (let i = 0; i < 2000; i += 1) {
    const res = await api(`/v2/deployments/${deploymentId}`);
    await res.body?.cancel();
    if (res.status === 404) return;
    await sleep(5);
  }
  throw new Error(`deployment ${deploymentId} was not removed`);
}
