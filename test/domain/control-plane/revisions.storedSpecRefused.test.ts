// A deployment stored before a rule of the resource_spec allowlist existed (its spec holds
// `SecretKeyRef` naming another deployment's Secret): a redeploy, and a PATCH that leaves the
// spec as stored, make a new revision that would render it, so both are refused (an
// `unprocessable` failure naming the field, a 422) and store nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import { putDeployment, putRevision } from '../../../src/domain/control-plane/records.ts';
import { CollectionControlPlane } from '../../../src/adapters/embedded/collectionControlPlane.ts';
import { createDeployment, type ControlPlaneDeps } from '../../../src/domain/control-plane/deployments.ts';
import { patchDeployment } from '../../../src/domain/control-plane/patchDeployment.ts';
import { redeployRevision } from '../../../src/domain/control-plane/revisions.ts';
import { revisionManifests } from '../../../src/domain/control-plane/revisionManifests.ts';
import { DEFAULT_WORKLOAD_POLICY } from '../../../src/domain/control-plane/workloadPolicy.ts';

const TENANT = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';
const OTHER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

test('a redeploy or a PATCH of a deployment whose stored resource_spec the allowlist refuses is a 422, storing nothing', async () => {
  const store = await openJournalStore({ dataDir: null });
  const repo = new CollectionControlPlane(store);
  const submitted: string[] = [];
  const deps = { repo, deployer: { submit: (r: { id: string }) => submitted.push(r.id) }, log: createLogger('silent') } as unknown as ControlPlaneDeps;
  const created = await createDeployment(
    deps,
    TENANT,
    { name: 'old', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'img:1' } } as never,
    'http://cp.test',
  );
  assert.ok(created.ok);
  const id = created.value.id;
  const record = (await repo.deployments.ofTenant(TENANT, id))!;
  const revision = (await repo.revisions.get(created.value.latest_revision_id!))!;
  const stale = sidecarReading(`agentplane-${OTHER}-secrets`);
  await repo.write([
    putDeployment({ ...record, source_config: { ...record.source_config, resource_spec: stale as never } }),
    putRevision({ ...revision, status: 'DEPLOYED' }),
  ]);

  const redeployed = await redeployRevision(deps, TENANT, id, revision.id);
  assert.ok(!redeployed.ok && redeployed.failure.kind === 'unprocessable', JSON.stringify(redeployed));
  const problems = (redeployed.failure.data as { problems: { loc: (string | number)[] }[] }).problems;
  assert.deepEqual(problems[0]!.loc, ['source_config', 'resource_spec', 'sidecars', 0, 'env', 0, 'valueFrom', 'SecretKeyRef']);

  const patched = await patchDeployment(deps, TENANT, id, { secrets: [{ name: 'K', value: 'v' }] } as never);
  assert.ok(!patched.ok && patched.failure.kind === 'unprocessable', JSON.stringify(patched));

  assert.equal((await repo.revisions.ofDeployment(id)).length, 1, 'no revision was stored');
  assert.deepEqual(submitted, [revision.id]);
  // a PATCH that replaces the spec with an admitted one is taken
  const fixed = {
    sidecars: [{ name: 'side', image: 'tools:1', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: `agentplane-${id}-secrets`, key: 'K' } } }] }],
  };
  const taken = await patchDeployment(deps, TENANT, id, { source_config: { resource_spec: fixed } } as never);
  assert.ok(taken.ok, JSON.stringify(taken));
});

function sidecarReading(secret: string) {
  return { sidecars: [{ name: 'side', image: 'tools:1', env: [{ name: 'X', valueFrom: { SecretKeyRef: { name: secret, key: 'K' } } }] }] };
}

test("a revision stored with another deployment's build as its image (before issue 83's rule) is neither redeployed, patched around nor rendered", async () => {
  const store = await openJournalStore({ dataDir: null });
  const repo = new CollectionControlPlane(store);
  const submitted: string[] = [];
  const deps = { repo, deployer: { submit: (r: { id: string }) => submitted.push(r.id) }, log: createLogger('silent') } as unknown as ControlPlaneDeps;
  const created = await createDeployment(
    deps,
    TENANT,
    { name: 'thief', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'img:1' } } as never,
    'http://cp.test',
  );
  assert.ok(created.ok);
  const id = created.value.id;
  const revision = (await repo.revisions.get(created.value.latest_revision_id!))!;
  const stolen = `localhost/agentplane-deployment-${OTHER}:rev`;
  await repo.write([putRevision({ ...revision, status: 'DEPLOYED', source_revision_config: { ...revision.source_revision_config, image_uri: stolen } })]);

  const redeployed = await redeployRevision(deps, TENANT, id, revision.id);
  assert.ok(!redeployed.ok && redeployed.failure.kind === 'unprocessable', JSON.stringify(redeployed));
  const problems = (redeployed.failure.data as { problems: { loc: (string | number)[]; msg: string }[] }).problems;
  assert.deepEqual(problems[0]!.loc, ['source_revision_config', 'image_uri']);
  assert.match(problems[0]!.msg, /reserved/);
  // a PATCH that keeps the stored image is refused too; one that names an allowed image is taken
  const patched = await patchDeployment(deps, TENANT, id, { secrets: [{ name: 'K', value: 'v' }] } as never);
  assert.ok(!patched.ok && patched.failure.kind === 'unprocessable', JSON.stringify(patched));
  assert.equal((await repo.revisions.ofDeployment(id)).length, 1, 'no revision was stored');
  assert.deepEqual(submitted, [revision.id]);
  // the manifests of the stored revision are refused at its image, as the Kubernetes deployers would refuse to apply them
  const shown = await revisionManifests(
    repo,
    { defaultNamespace: 'default', postgresImage: 'postgres:16', policy: DEFAULT_WORKLOAD_POLICY },
    TENANT,
    id,
    revision.id,
  );
  assert.ok(!shown.ok && shown.failure.kind === 'unprocessable', JSON.stringify(shown));
  assert.deepEqual((shown.failure.data as { problems: { loc: string[] }[] }).problems[0]!.loc, ['source_revision_config', 'image_uri']);
  const taken = await patchDeployment(deps, TENANT, id, { source_revision_config: { image_uri: 'ghcr.io/acme/agent:2' } } as never);
  assert.ok(taken.ok, JSON.stringify(taken));
});
