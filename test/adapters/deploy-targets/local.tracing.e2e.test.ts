// Each deployment has a tracing project of its name: the server the local deployer starts
// exports its runs' spans with service.name = the deployment's name (the collector here is
// named by the deployment's own OTEL_EXPORTER_OTLP_ENDPOINT secret).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { otlpReceiver } from '../../support/otlpReceiver.ts';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';

const KEY = `deployment-tracing-${randomUUID()}`;
const data = tempDir('agentplane-deployment-tracing-');
let controlPlane: ChildServer | undefined;

after(async () => {
  await controlPlane?.kill('SIGTERM');
  removeDeploymentUsers(`${data}-deployments`);
});

test('a deployed server exports the spans of its runs with the deployment name as the service', { timeout: 300_000 }, async () => {
  const receiver = await otlpReceiver();
  const repo = makeRepository();
  repo.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource('v1') }, 'the agent');
  controlPlane = await spawnServer(['--data', data], {
    AGENTPLANE_API_KEYS: `${KEY}:${randomUUID()}`,
    AGENTPLANE_DEPLOYER: 'local',
    AGENTPLANE_ACCESS_LOG: 'off',
  });
  const api = async (pathname: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(controlPlane!.url + pathname, {
      method: init.method,
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  try {
    const created = await api('/v2/deployments', {
      method: 'POST',
      json: {
        name: 'traced-agent',
        source: 'github',
        source_config: { repo_url: repo.dir },
        source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
        secrets: [{ name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: receiver.url }],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // the deployment is READY before its first revision is deployed: wait for the revision
    const deadline = Date.now() + 240_000;
    for (;;) {
      const revision = (await api(`/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id}`)).body;
      if (revision.status === 'DEPLOYED') break;
      if (Date.now() > deadline || /FAILED|SKIPPED|INTERRUPTED/.test(revision.status)) assert.fail(`revision ${revision.status}:\n${controlPlane.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const deployment = (await api(`/v2/deployments/${created.body.id}`)).body;
    const url: string = deployment.source_config.custom_url;
    // the deployed server answers the key the deployment is managed with
    const headers = { 'content-type': 'application/json', 'x-api-key': KEY };
    const thread = (await (await fetch(`${url}/threads`, { method: 'POST', headers, body: '{}' })).json()) as {
      thread_id: string;
    };
    const ran = await fetch(`${url}/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } }),
    });
    assert.equal(ran.status, 200);
    await receiver.arrived(() => receiver.spans().some((s) => s.name === 'invoke_agent echo'));
    // the deployer names the deployment on the resource, as the conventions' deployment.name
    assert.ok(receiver.spans().every((s) => s.resource['deployment.name'] === 'traced-agent'));
    assert.deepEqual([...new Set(receiver.spans().map((s) => s.service))], ['traced-agent']);
    assert.equal((await api(`/v2/deployments/${created.body.id}`, { method: 'DELETE' })).status, 204);
  } finally {
    await receiver.close();
  }
});
