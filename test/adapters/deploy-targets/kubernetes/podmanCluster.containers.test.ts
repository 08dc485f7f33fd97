// kube-local's adaptation of the rendered manifests (podmanCluster.ts), without podman: the
// deployment's PostgreSQL becomes a one-pod Deployment on a volume of its own, the server's
// DATABASE_URL carries the password Kubernetes would have expanded from the Secret, and what
// is not played is said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { objectNames, renderManifests, type Manifest } from '../../../../src/domain/control-plane/kubernetes/renderManifests.ts';
import { adaptForPodman, databaseLogin } from '../../../../src/adapters/deploy-targets/kubernetes/podmanCluster.ts';
import { fullResourceSpec } from '../../../containers/fullResourceSpec.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';

/** The manifests of a deployment of every resource group, rendered with `password` as its database's. */
function renderedFor(id: string, name: string, password: string): Manifest[] {
  const rendered = renderManifests({
    deployment: { id, name, secrets: [], source_config: { resource_spec: fullResourceSpec('img') } as never },
    revision: { id: randomUUID(), source_revision_config: { image_uri: 'img' } as never },
    defaultNamespace: 'default',
    postgresImage: 'postgres:16',
    databasePassword: password,
    workload: workloadOf(DEFAULT_WORKLOAD_POLICY, EVERY_TENANT),
  });
  assert.ok(rendered.ok);
  return rendered.manifests;
}

test("the database is played as a Deployment on its own volume, and the server's DATABASE_URL has its password", () => {
  const id = randomUUID();
  const names = objectNames(id);
  const { played, database, skipped } = adaptForPodman(renderedFor(id, 'adapt', 'pw-0123'), names.server, 41000);
  const pod = (database!.spec as any).template.spec;
  assert.equal(database!.kind, 'Deployment');
  assert.deepEqual(pod.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: `${names.database}-data` } }]);
  assert.equal(pod.containers[0].ports, undefined);
  const server = (played.find((m: Manifest) => m.metadata.name === names.server)!.spec as any).template.spec.containers[0];
  assert.equal(server.env.find((e: any) => e.name === 'DATABASE_URL').value, `postgresql://agentplane:pw-0123@${names.database}:5432/agentplane`);
  assert.deepEqual(server.ports, [{ containerPort: 8000, hostPort: 41000, hostIP: '127.0.0.1' }]);
  assert.ok(skipped.some((line) => /^HorizontalPodAutoscaler\/.* played at its minimum/.test(line)));
  assert.ok(!played.some((m) => m.kind === 'StatefulSet'));
});

test("kube-local waits for the database's login as its container is given it: user, database, and the password from the Secret", () => {
  const id = randomUUID();
  const { database, secrets } = adaptForPodman(renderedFor(id, 'login', 'pw-4567'), objectNames(id).server, 41000);
  assert.deepEqual(databaseLogin(database!, secrets), { user: 'agentplane', database: 'agentplane', password: 'pw-4567' });
});
