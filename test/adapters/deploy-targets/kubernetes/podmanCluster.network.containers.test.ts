// kube-local's tenant boundary on the network (issue 83): two deployments played on this
// machine's podman, each with its PostgreSQL. From A's server container, B's server pod and B's
// database pod are out of reach; B's server still reaches its own database (by the name its
// DATABASE_URL uses); and a delete leaves no pod, container, volume, secret or network of the
// deployment behind, its database's included, even when its played files are gone (a play
// interrupted, a data directory cleaned by hand).
// Run: CONTAINERS_CONF=$PWD/config/containers.conf npx tsx scripts/run-tests.ts --containers test/adapters/deploy-targets/kubernetes/podmanCluster.network.containers.test.ts
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PodmanCluster } from '../../../../src/adapters/deploy-targets/kubernetes/podmanCluster.ts';
import { renderManifests, type RenderInput } from '../../../../src/domain/control-plane/kubernetes/renderManifests.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';
import { until } from '../../../containers/support/replies.ts';
import { CONTAINERS_CONF, podman, podmanAvailable, sharedNodeImage } from '../../../containers/support/nodeImage.ts';
import { sharedPostgresImage } from '../../../containers/support/postgresImage.ts';
import { tempDir } from '../../../support/tempDirs.ts';

const skip = podmanAvailable() ? false : 'podman is not installed';
const root = tempDir('agentplane-kube-network-');
const cluster = new PodmanCluster({ root, env: { ...process.env, CONTAINERS_CONF } });
const A = randomUUID();
const B = randomUUID();

async function play(deploymentId: string, image: string, postgresImage: string): Promise<void> {
  const input: RenderInput = {
    deployment: { id: deploymentId, name: 'net', secrets: [], source_config: { resource_spec: null } as RenderInput['deployment']['source_config'] },
    revision: { id: randomUUID(), source_revision_config: { image_uri: image } as RenderInput['revision']['source_revision_config'] },
    defaultNamespace: 'default',
    postgresImage,
    databasePassword: `pw-${deploymentId.slice(0, 8)}`,
    workload: workloadOf({ ...DEFAULT_WORKLOAD_POLICY, imageNamespaces: { [EVERY_TENANT]: ['*', 'localhost'] } }, EVERY_TENANT),
  };
  const rendered = renderManifests(input);
  assert.ok(rendered.ok, JSON.stringify(rendered));
  await cluster.apply(deploymentId, rendered.namespace, rendered.manifests, () => {});
  await until(
    `deployment ${deploymentId} to be ready`,
    async () => {
      const state = await cluster.rollout(deploymentId);
      assert.notEqual(state.state, 'failed', JSON.stringify(state));
      return state.state === 'ready' ? true : undefined;
    },
    120_000,
  );
}

/** The address of a pod on its network. */
const address = (pod: string) =>
  podman([
    'inspect',
    podman(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}']).trim(),
    '--format',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
  ]).trim();

/** Whether a TCP connection from inside `container` to host:port opens within 3 s. */
function connects(container: string, host: string, port: number): boolean {
  const script = `const s=require('net').connect(${port},${JSON.stringify(host)});s.setTimeout(3000,()=>{console.log('timeout');process.exit(0)});s.on('connect',()=>{console.log('open');process.exit(0)});s.on('error',e=>{console.log(e.code);process.exit(0)})`;
  return podman(['exec', container, '/usr/bin/node', '-e', script]).trim() === 'open';
}

const leftovers = (deploymentId: string) => {
  const ours = (args: string[]) =>
    podman(args)
      .split('\n')
      .filter((n) => n.includes(deploymentId));
  return {
    pods: ours(['pod', 'ps', '--format', '{{.Name}}']),
    containers: ours(['ps', '--all', '--format', '{{.Names}}']),
    secrets: ours(['secret', 'ls', '--format', '{{.Name}}']),
    volumes: ours(['volume', 'ls', '--format', '{{.Name}}']),
    networks: ours(['network', 'ls', '--format', '{{.Name}}']),
  };
};

before(async () => {
  if (skip) return;
  const [image, postgresImage] = await Promise.all([sharedNodeImage(), sharedPostgresImage()]);
  await Promise.all([play(A, image, postgresImage), play(B, image, postgresImage)]);
});

after(async () => {
  if (!skip) for (const id of [A, B]) await cluster.remove(id).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

test("one deployment's pods reach neither another's server nor its database; a server reaches its own database", { skip, timeout: 120_000 }, () => {
  const aServer = `agentplane-${A}-pod-0-server`;
  const bServer = `agentplane-${B}-pod-0-server`;
  const bServerAddress = address(`agentplane-${B}-pod-0`);
  const bDatabaseAddress = address(`agentplane-${B}-db-pod-0`);
  // what each sees of its own: the server its port, the database through the name of its Service
  assert.equal(connects(bServer, bServerAddress, 8000), true);
  assert.equal(connects(bServer, `agentplane-${B}-db`, 5432), true);
  assert.equal(connects(bServer, bDatabaseAddress, 5432), true);
  // A's pod, on the machine's own podman, in the same address space
  assert.equal(connects(aServer, bServerAddress, 8000), false, "A's server reached B's server");
  assert.equal(connects(aServer, bDatabaseAddress, 5432), false, "A's server reached B's database");
  assert.equal(connects(aServer, `agentplane-${A}-db`, 5432), true);
});

test('a delete removes every pod, container, volume, secret and network of the deployment, its database too', { skip, timeout: 120_000 }, async () => {
  await cluster.remove(A);
  assert.deepEqual(leftovers(A), { pods: [], containers: [], secrets: [], volumes: [], networks: [] });
  // B's database as a play interrupted or a hand-cleaned directory leave it: running, its file gone
  fs.rmSync(path.join(root, B, 'database.yaml'));
  await cluster.remove(B);
  assert.deepEqual(leftovers(B), { pods: [], containers: [], secrets: [], volumes: [], networks: [] });
});
