// A server the control plane deploys answers its tenant's keys only (issue 83: it ran with
// agent-server auth off, so no tenant quota bound there): the Kubernetes renders (kubernetes,
// kube-local) give the server and queue containers agent-server auth on and the tenant's key
// digests, in `env`, which Kubernetes (and podman kube play) put over the secrets of `envFrom`:
// a secret of the tenant's of the same name cannot turn it off. The process and container
// deployers' side is tested in test/adapters/deploy-targets/container/containerTarget.images.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { deployedServerAuthEnv } from '../../../../src/domain/control-plane/deployer/deployedServerAuth.ts';
import { renderManifests, type Manifest, type RenderInput } from '../../../../src/domain/control-plane/kubernetes/renderManifests.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';

const tenant = randomUUID();
const digest = 'ab'.repeat(32);

test("the rendered server and queue run with agent-server auth on and the tenant's key digests, over its secrets", () => {
  const env = deployedServerAuthEnv(tenant, (asked) => (asked === tenant ? [digest] : ['cd'.repeat(32)]));
  assert.deepEqual(deployedServerAuthEnv(tenant, undefined), {}, 'a listener, holding no key of the tenant, adds nothing');
  assert.deepEqual(env, { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEY_DIGESTS: `${digest}:${tenant}` });
  const input: RenderInput = {
    deployment: {
      id: randomUUID(),
      name: 'agent',
      // the tenant tries to turn auth off with secrets of the same names
      secrets: [
        { name: 'AGENTPLANE_AGENT_SERVER_AUTH', value: '0' },
        { name: 'AGENTPLANE_API_KEY_DIGESTS', value: '' },
      ],
      source_config: { resource_spec: { queue_min_scale: 1 } } as unknown as RenderInput['deployment']['source_config'],
    },
    revision: { id: randomUUID(), source_revision_config: { image_uri: 'registry.example/agent:1.0' } as RenderInput['revision']['source_revision_config'] },
    defaultNamespace: 'agents',
    postgresImage: 'postgres:16',
    databasePassword: 'pw',
    workload: workloadOf(DEFAULT_WORKLOAD_POLICY, EVERY_TENANT),
    serverAuth: env,
  };
  const rendered = renderManifests(input);
  assert.ok(rendered.ok, JSON.stringify(rendered));
  type Container = { name: string; env: { name: string; value?: string }[]; envFrom?: unknown[] };
  const containers = rendered.manifests
    .filter((m: Manifest) => m.kind === 'Deployment')
    .flatMap((m) => (m as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers)
    .filter((c) => c.name === 'server' || c.name === 'queue');
  assert.deepEqual(containers.map((c) => c.name).sort(), ['queue', 'server']);
  for (const container of containers) {
    const value = (name: string) => container.env.find((e) => e.name === name)?.value;
    assert.equal(value('AGENTPLANE_AGENT_SERVER_AUTH'), '1', container.name);
    assert.equal(value('AGENTPLANE_API_KEY_DIGESTS'), `${digest}:${tenant}`, container.name);
    assert.ok(container.envFrom, 'the secrets are still read, under env');
  }
});
