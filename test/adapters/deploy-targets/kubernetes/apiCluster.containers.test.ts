// The `kubernetes` deployer's calls to an API server, against a stand-in that answers as one
// does (support/fakeKubeApi.ts; no cluster runs here): server-side apply of every rendered
// object (PATCH, application/apply-patch+yaml, fieldManager agentplane, force), the rollout
// read from the Deployment's status, the server's pod log through the log operation, a stuck
// image pull failing the revision with the pod's reason, and delete by the deployment's label.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestServer, tempDir, type TestServer } from '../../../support/server.ts';
import { startFakeKubeApi, type FakeKubeApi } from '../../../containers/support/fakeKubeApi.ts';
import { keyDigest } from '../../../../src/runtime/security/auth.ts';

let kube: FakeKubeApi;
let server: TestServer;

before(async () => {
  kube = await startFakeKubeApi();
  const kubeconfig = path.join(tempDir('agentplane-kubeconfig-'), 'config');
  fs.writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: kube.url, 'insecure-skip-tls-verify': true } }],
      // plain HTTP: the client refuses it unless TLS checks are off
      users: [{ name: 'deployer', user: { token: 'test-token' } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'deployer' } }],
      'current-context': 'fake',
    }),
  );
  server = await startTestServer({ env: { AGENTPLANE_DEPLOYER: 'kubernetes', KUBECONFIG: kubeconfig, AGENTPLANE_KUBE_NAMESPACE: 'agents' } });
});

after(async () => {
  await server?.close();
  await kube?.close();
});

async function json<T = any>(res: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await res;
  const text = await r.text();
  assert.equal(r.status, status, text);
  return text ? JSON.parse(text) : (undefined as T);
}

async function finished(revisionPath: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await json(server.api(revisionPath));
    if (r.status === 'DEPLOYED' || r.status.endsWith('FAILED')) return r;
    if (Date.now() > deadline) throw new Error(`revision still ${r.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function create(name: string, resourceSpec: object) {
  return json(
    server.api('/v2/deployments', {
      method: 'POST',
      json: {
        name: `${name}-${randomUUID().slice(0, 8)}`,
        source: 'external_docker',
        source_config: { resource_spec: resourceSpec },
        source_revision_config: { image_uri: 'registry.example/agent:1.0' },
        secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-kube-api' }],
      },
    }),
    201,
  );
}

test(
  'every rendered object is server-side applied, the rollout is read from the Deployment status, logs and delete go through the API',
  { timeout: 120_000 },
  async () => {
    kube.podState = 'running';
    kube.podLog = '{"level":30,"time":1795000000000,"msg":"agentplane listening"}\nsecond line sk-kube-api\n';
    const created = await create('kube-api', { min_scale: 2, max_scale: 4, cpu: 0.5, memory_mb: 256, db_storage_gi: 5 });
    const revisionPath = `/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`;
    const revision = await finished(revisionPath);
    assert.equal(revision.status, 'DEPLOYED', revision.status_message);

    const shown = await json(server.api(`${revisionPath}/manifests`));
    const applies = kube.requests.filter((r) => r.method === 'PATCH');
    assert.deepEqual(
      applies.map((r) => `${r.body.kind}/${r.body.metadata.name}`),
      shown.manifests.map((m: any) => `${m.kind}/${m.metadata.name}`),
      'each object of the render, in its order',
    );
    for (const r of applies) {
      assert.equal(r.contentType, 'application/apply-patch+yaml');
      assert.equal(r.query.get('fieldManager'), 'agentplane');
      assert.equal(r.query.get('force'), 'true');
      assert.match(r.path, /\/namespaces\/agents\//);
    }
    const deploymentApply = applies.find((r) => r.path === `/apis/apps/v1/namespaces/agents/deployments/agentplane-${created.id}`);
    // the HPA owns the count (max_scale 4 > min_scale 2): no replicas to reset what it chose
    assert.ok(deploymentApply && !('replicas' in deploymentApply.body.spec), JSON.stringify(deploymentApply?.body.spec));
    // the server answers the tenant's keys only (AGENTPLANE_DEPLOYMENT_AUTH on by default), given by digest; the API view masks it
    const envOf = (deployment: any) =>
      Object.fromEntries(deployment.spec.template.spec.containers.find((c: any) => c.name === 'server').env.map((e: any) => [e.name, e.value]));
    const appliedEnv = envOf(deploymentApply!.body);
    assert.equal(appliedEnv.AGENTPLANE_AGENT_SERVER_AUTH, '1');
    assert.equal(appliedEnv.AGENTPLANE_API_KEY_DIGESTS, `${keyDigest(server.key)}:${server.tenant}`);
    assert.equal(envOf(shown.manifests.find((m: any) => m.kind === 'Deployment')).AGENTPLANE_API_KEY_DIGESTS, `********:${server.tenant}`);
    assert.ok(applies.some((r) => r.path === `/apis/autoscaling/v2/namespaces/agents/horizontalpodautoscalers/agentplane-${created.id}`));
    assert.ok(applies.some((r) => r.path === `/apis/policy/v1/namespaces/agents/poddisruptionbudgets/agentplane-${created.id}`));
    assert.ok(applies.some((r) => r.path === `/apis/apps/v1/namespaces/agents/statefulsets/agentplane-${created.id}-db`));
    // the deployment's network boundary, applied with the rest (and deleted with it, below)
    for (const policy of ['default-deny', 'server', 'egress', 'db'])
      assert.ok(applies.some((r) => r.path === `/apis/networking.k8s.io/v1/namespaces/agents/networkpolicies/agentplane-${created.id}-${policy}`));
    // the real secret values reach the cluster (only the API view masks them)
    assert.deepEqual(applies.find((r) => r.body.kind === 'Secret' && r.body.metadata.name.endsWith('-secrets'))?.body.stringData, {
      OPENAI_API_KEY: 'sk-kube-api',
    });
    // the rollout was polled past an unobserved generation
    const looks = kube.requests.filter((r) => r.method === 'GET' && r.query.get('labelSelector') === `agentplane.dev/deployment-id=${created.id}`);
    assert.ok(looks.filter((r) => r.path === '/apis/apps/v1/namespaces/agents/deployments').length >= 2);
    assert.ok(
      looks.some((r) => r.path === '/apis/apps/v1/namespaces/agents/statefulsets'),
      'the database is waited for too',
    );

    const deployment = await json(server.api(`/v2/deployments/${created.id}`));
    assert.equal(deployment.source_config.custom_url, `http://agentplane-${created.id}.agents.svc.cluster.local:8000`);

    const logs = await json(server.api(`${revisionPath}/logs?type=deploy&limit=1000`));
    const messages: string[] = logs.logs.map((l: any) => l.message);
    assert.ok(messages.includes('agentplane listening'), messages.join('\n'));
    assert.ok(messages.includes('second line ********'), 'secret values are masked in pod logs');
    assert.ok(kube.requests.some((r) => r.path.endsWith('/log') && r.query.get('container') === 'server'));

    await json(server.api(`/v2/deployments/${created.id}`, { method: 'DELETE' }), 204);
    const deadline = Date.now() + 30_000;
    while ((await server.api(`/v2/deployments/${created.id}`)).status !== 404) {
      assert.ok(Date.now() < deadline, 'deployment not gone');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.deepEqual(
      [...kube.objects.keys()].filter((k) => k.includes(created.id)),
      [],
      'every object of the deployment is deleted',
    );
    assert.ok(kube.requests.some((r) => r.method === 'GET' && r.query.get('labelSelector') === `agentplane.dev/deployment-id=${created.id}`));
  },
);

test("a pod stuck pulling its image fails the revision with the pod's reason", { timeout: 120_000 }, async () => {
  kube.podState = 'image-pull-back-off';
  const created = await create('kube-pull', {});
  const revision = await finished(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`);
  assert.equal(revision.status, 'DEPLOY_FAILED');
  assert.match(revision.status_message, /container server: ImagePullBackOff: Back-off pulling image "registry\.example\/agent:1\.0"/);
});
