// kube-local end to end, on this machine's podman: an external_docker deployment whose
// resource_spec uses every group of the seed is rendered, validated and played with
// `podman kube play` by the control plane (AGENTPLANE_DEPLOYER=kube-local); the init
// container's output reaches the main container through the emptyDir, the sidecar runs, the
// limits are in podman's own view of the containers, the server's log reads through the log
// operation, and delete leaves nothing of it behind.
// Run: CONTAINERS_CONF=$PWD/config/containers.conf node --import tsx --test test/adapters/deploy-targets/kubernetes/podmanCluster.kubeLocal.containers.test.ts
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../../../support/server.ts';
import { json, until } from '../../../containers/support/replies.ts';
import { CONTAINERS_CONF, TEST_IMAGE_NAMESPACES, podman, podmanAvailable, sharedNodeImage } from '../../../containers/support/nodeImage.ts';
import { fullResourceSpec } from '../../../containers/fullResourceSpec.ts';
import { sharedPostgresImage } from '../../../containers/support/postgresImage.ts';

const skip = podmanAvailable() ? false : 'podman is not installed';
let image = '';
let postgresImage = '';
let server: TestServer;

before(async () => {
  if (skip) return;
  image = await sharedNodeImage();
  postgresImage = await sharedPostgresImage();
  server = await startTestServer({
    env: {
      AGENTPLANE_DEPLOYER: 'kube-local',
      CONTAINERS_CONF,
      AGENTPLANE_DEPLOY_TIMEOUT_S: '240',
      AGENTPLANE_KUBE_POSTGRES_IMAGE: postgresImage,
      AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES,
      // allowed here, so that what speaks of the csi volume below is kube-local (the tenant boundary allows none by default)
      AGENTPLANE_CSI_DRIVERS: 'secrets-store.csi.k8s.io',
    },
  });
});

after(async () => {
  await server?.close();
});

const leftovers = (deploymentId: string) => ({
  pods: podman(['pod', 'ps', '--format', '{{.Name}}'])
    .split('\n')
    .filter((n) => n.includes(deploymentId)),
  containers: podman(['ps', '--all', '--format', '{{.Names}}'])
    .split('\n')
    .filter((n) => n.includes(deploymentId)),
  secrets: podman(['secret', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter((n) => n.includes(deploymentId)),
  volumes: podman(['volume', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter((n) => n.includes(deploymentId)),
  networks: podman(['network', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter((n) => n.includes(deploymentId)),
});

test('a resource_spec with every group is rendered, validated, played with podman kube play and torn down', { skip, timeout: 600_000 }, async () => {
  const created = await json(
    server.api('/v2/deployments', {
      method: 'POST',
      json: {
        name: `kube-local-${randomUUID().slice(0, 8)}`,
        source: 'external_docker',
        source_config: { resource_spec: fullResourceSpec(image) },
        source_revision_config: { image_uri: image },
        secrets: [{ name: 'AGENT_TOKEN', value: 'tok-kube-local' }],
      },
    }),
    201,
  );
  const id: string = created.id;
  const revisionPath = `/v2/deployments/${id}/revisions/${created.latest_revision_id}`;

  // the manifests the deployer applies, as the API shows them: every kind, secrets masked
  const shown = await json(server.api(`${revisionPath}/manifests`));
  // the operator's namespace (AGENTPLANE_KUBE_NAMESPACE)
  assert.equal(shown.namespace, 'default');
  assert.deepEqual(shown.manifests.map((m: any) => m.kind).sort(), [
    'Deployment',
    'Deployment',
    'HorizontalPodAutoscaler',
    'HorizontalPodAutoscaler',
    'NetworkPolicy',
    'NetworkPolicy',
    'NetworkPolicy',
    'NetworkPolicy',
    'Secret',
    'Secret',
    'Service',
    'Service',
    'StatefulSet',
  ]);
  assert.ok(shown.manifests.filter((m: any) => m.kind === 'Secret').every((s: any) => Object.values(s.stringData).every((v) => v === '********')));

  const revision = await until('the revision to finish', async () => {
    const r = await json(server.api(revisionPath));
    return ['DEPLOYED', 'DEPLOY_FAILED'].includes(r.status) ? r : undefined;
  });
  assert.equal(revision.status, 'DEPLOYED', revision.status_message);
  const deployment = await json(server.api(`/v2/deployments/${id}`));
  const url: string = deployment.source_config.custom_url;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);

  // init container → emptyDir → main container; sidecar beating into the same volume
  assert.equal(await (await fetch(`${url}/files/greeting.txt`)).text(), 'hello from the init container\n');
  const beat = await (await fetch(`${url}/files/beat.txt`)).text();
  await until('a newer heartbeat of the sidecar', async () => ((await (await fetch(`${url}/files/beat.txt`)).text()) !== beat ? true : undefined), 30_000);
  // the deployment's secrets as environment variables of the server
  assert.equal(await (await fetch(`${url}/env/AGENT_TOKEN`)).text(), 'tok-kube-local');
  assert.equal(await (await fetch(`${url}/env/AGENTPLANE_ROLE`)).text(), 'server');

  // limits as podman applied them: cpu as a CFS quota, memory in bytes
  const serverPod = `agentplane-${id}-pod-0`;
  const limits = (container: string) =>
    JSON.parse(
      podman([
        'inspect',
        container,
        '--format',
        '{"memory": {{.HostConfig.Memory}}, "nanoCpus": {{.HostConfig.NanoCpus}}, "quota": {{.HostConfig.CpuQuota}}, "period": {{.HostConfig.CpuPeriod}}}',
      ]),
    );
  const main = limits(`${serverPod}-server`);
  assert.equal(main.memory, 128 * 1024 * 1024);
  assert.equal(main.quota / main.period, 0.5);
  const sidecar = limits(`${serverPod}-heartbeat`);
  assert.equal(sidecar.memory, 48 * 1024 * 1024);
  assert.equal(podman(['inspect', `${serverPod}-heartbeat`, '--format', '{{.State.Status}}']).trim(), 'running');
  // the emptyDir is a podman volume of this deployment's own (podman names it machine-wide)
  assert.match(podman(['inspect', `${serverPod}-server`, '--format', '{{range .Mounts}}{{.Name}} {{end}}']), new RegExp(`\\bagentplane-${id}-shared\\b`));
  // queue workers: their own pod, the queue role, the queue_* limits
  const queuePod = `agentplane-${id}-queue-pod-0`;
  assert.equal(limits(`${queuePod}-queue`).memory, 96 * 1024 * 1024);
  assert.match(podman(['inspect', `${queuePod}-queue`, '--format', '{{range .Config.Env}}{{println .}}{{end}}']), /^AGENTPLANE_ROLE=queue$/m);

  // the server's own output through the log operation, beside what the deployer did
  const logs = await json(server.api(`${revisionPath}/logs?type=deploy&limit=1000`));
  const messages: string[] = logs.logs.map((l: any) => l.message);
  assert.ok(
    messages.some((m) => m.includes('test server listening')),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) => /HorizontalPodAutoscaler\/agentplane-.* played at its minimum/.test(m)),
    'what podman cannot play is said in the log',
  );
  // the deployment's PostgreSQL is played: db_* limits and max_connections, its data on a volume of its own
  const databaseContainer = `agentplane-${id}-db-pod-0-postgres`;
  assert.equal(limits(databaseContainer).memory, 512 * 1024 * 1024);
  assert.match(podman(['inspect', databaseContainer, '--format', '{{.Config.Cmd}}']), /max_connections=150/);
  assert.match(podman(['inspect', databaseContainer, '--format', '{{range .Mounts}}{{.Name}} {{end}}']), new RegExp(`\\bagentplane-${id}-db-data\\b`));

  await json(server.api(`/v2/deployments/${id}`, { method: 'DELETE' }), 204);
  await until('the deployment to be gone', async () => ((await server.api(`/v2/deployments/${id}`)).status === 404 ? true : undefined));
  assert.deepEqual(leftovers(id), { pods: [], containers: [], secrets: [], volumes: [], networks: [] });
});

test(
  'what kube-local cannot play (redis_*, a csi or downwardAPI volume, several replicas) is a 422 at create naming each field',
  { skip, timeout: 120_000 },
  async () => {
    const refused = await json(
      server.api('/v2/deployments', {
        method: 'POST',
        json: {
          name: `kube-refused-${randomUUID().slice(0, 8)}`,
          source: 'external_docker',
          source_config: {
            resource_spec: {
              redis_memory_mb: 256,
              min_scale: 2,
              volumes: [
                { name: 'conf', csi: { driver: 'secrets-store.csi.k8s.io' } },
                { name: 'meta', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
              ],
            },
          },
          source_revision_config: { image_uri: image },
        },
      }),
      422,
    );
    assert.deepEqual(refused.detail.map((d: any) => d.loc.slice(2).join('.')).sort(), [
      'min_scale',
      'redis_memory_mb',
      'volumes.0.csi',
      'volumes.1.downwardAPI',
    ]);
    assert.ok(refused.detail.every((d: any) => d.type === 'refused' && d.msg.length > 40));
    // nothing was stored
    const listed = await json(server.api('/v2/deployments?name_contains=kube-refused'));
    assert.deepEqual(listed.resources, []);
  },
);
