// The manifests a revision is shown are those the Kubernetes deployers apply (issue 83): with no
// AGENTPLANE_DEPLOYMENT_AUTH set, the server and queue containers run with agent-server auth on
// and the deployment's tenant's key digests (masked, as the secrets are); with it 0, neither.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { areaApp } from '../../support/area.ts';
import type { InProcessApp } from '../../support/server.ts';
import { create, dockerBody, json } from '../../control-plane/support.ts';

const apps: InProcessApp[] = [];
after(() => Promise.all(apps.map((app) => app.close())));

type Container = { name: string; env?: { name: string; value?: string }[] };

async function shownEnv(env: Record<string, string>) {
  const app = await areaApp('control-plane', { env });
  apps.push(app);
  const created = await create(app.api, { ...dockerBody('shown'), source_config: { resource_spec: { queue_min_scale: 1 } } });
  const shown = await json(await app.api(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}/manifests`), 200);
  const containers = (shown.manifests as { kind: string; spec: { template: { spec: { containers: Container[] } } } }[])
    .filter((m) => m.kind === 'Deployment')
    .flatMap((m) => m.spec.template.spec.containers);
  assert.deepEqual(containers.map((c) => c.name).sort(), ['queue', 'server']);
  return {
    tenant: app.tenant,
    key: app.key,
    env: containers.map((c) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]))),
  };
}

test("by default the rendered server and queue answer the tenant's keys only, the digests masked", async () => {
  const { tenant, key, env } = await shownEnv({});
  for (const vars of env) {
    assert.equal(vars.AGENTPLANE_AGENT_SERVER_AUTH, '1');
    assert.equal(vars.AGENTPLANE_API_KEY_DIGESTS, `********:${tenant}`);
    assert.ok(!JSON.stringify(vars).includes(key), 'no key is shown');
  }
});

test('AGENTPLANE_DEPLOYMENT_AUTH=0 renders them as the project file says', async () => {
  const { env } = await shownEnv({ AGENTPLANE_DEPLOYMENT_AUTH: '0' });
  for (const vars of env) {
    assert.equal(vars.AGENTPLANE_AGENT_SERVER_AUTH, undefined);
    assert.equal(vars.AGENTPLANE_API_KEY_DIGESTS, undefined);
  }
});
