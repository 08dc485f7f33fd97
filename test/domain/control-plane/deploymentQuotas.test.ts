// A tenant at its bound of deployments that keeps asking for more is refused by the count its
// index keeps, without its deployments read (issue 83): each refusal read up to 201 of them, a
// copy of each made, and a flooding tenant's refusals were a share of what the server allocated
// while another tenant waited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionControlPlane } from '../../../src/adapters/embedded/collectionControlPlane.ts';
import { roomForDeployment } from '../../../src/domain/control-plane/deploymentQuotas.ts';
import { DEFAULT_WORKLOAD_POLICY, workloadOf } from '../../../src/domain/control-plane/workloadPolicy.ts';
import { createDeployment, deleteDeployment, type ControlPlaneDeps } from '../../../src/domain/control-plane/deployments.ts';
import { patchDeployment } from '../../../src/domain/control-plane/patchDeployment.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';

const TENANT = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';

test("a tenant at its bound of deployments is refused without its deployments read; below it, a change's room is read off its totals", async () => {
  const repo = new CollectionControlPlane(await openJournalStore({ dataDir: null }));
  const policy = { ...DEFAULT_WORKLOAD_POLICY, maxDeploymentsPerTenant: 3 };
  const deps = { repo, policy, deployer: { submit: () => {} }, log: createLogger('silent') } as unknown as ControlPlaneDeps;
  for (let i = 0; i < 3; i++) {
    const made = await createDeployment(
      deps,
      TENANT,
      { name: `d${i}`, source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'img:1' } } as never,
      'http://cp.test',
    );
    assert.ok(made.ok, JSON.stringify(made));
  }
  let reads = 0;
  const newestFirst = repo.deployments.newestFirst.bind(repo.deployments);
  repo.deployments.newestFirst = (...args) => {
    reads++;
    return newestFirst(...args);
  };
  const workload = workloadOf(policy, TENANT);
  const refused = await roomForDeployment(repo, TENANT, workload, { max_scale: 1 }, null);
  assert.ok(!refused.ok && /AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT/.test(refused.failure.detail));
  assert.equal(reads, 0, 'the refusal read no deployment');
  // a change of one held is not a new deployment: its room is read off the tenant's totals
  const [held] = await newestFirst(TENANT, {}, { offset: 0, limit: 1 });
  assert.ok((await roomForDeployment(repo, TENANT, workload, { max_scale: 1 }, held!)).ok);
  assert.equal(reads, 0);
});

// A create read up to AGENTPLANE_MAX_REPLICAS_PER_TENANT + 1 of its tenant's deployments to sum
// their replicas: with the bound raised to 1,000,000, a create took 12 ms at 10,000 deployments
// on the embedded store and 821 ms at 100,000 on PostgreSQL. The sum is kept beside them now.
test("a create reads its tenant's totals, not its deployments; the totals follow creates, scale changes and removals", async () => {
  const store = await openJournalStore({ dataDir: null });
  const repo = new CollectionControlPlane(store);
  const policy = { ...DEFAULT_WORKLOAD_POLICY, maxReplicasPerTenant: 1_000 };
  const deps = { repo, policy, deployer: { submit: () => {}, retire: () => {} }, log: createLogger('silent') } as unknown as ControlPlaneDeps;
  const create = async (name: string, resource_spec: Record<string, number>) => {
    const made = await createDeployment(
      deps,
      TENANT,
      { name, source: 'external_docker', source_config: { resource_spec }, source_revision_config: { image_uri: 'img:1' } } as never,
      'http://cp.test',
    );
    assert.ok(made.ok, JSON.stringify(made));
    return made.value.id;
  };
  const replicas = async () => (await repo.tenantTotals.get(TENANT))?.replicas;

  // deployments made before the totals were kept: the first create counts them once
  await create('old-1', { max_scale: 3 });
  await create('old-2', {});
  await store.write([{ collection: 'cp-tenant-totals', id: TENANT, delete: true }]);
  let reads = 0;
  const newestFirst = repo.deployments.newestFirst.bind(repo.deployments);
  repo.deployments.newestFirst = (...args) => {
    reads++;
    return newestFirst(...args);
  };
  const wide = await create('wide', { max_scale: 2, queue_max_scale: 4 });
  assert.equal(await replicas(), 3 + 1 + 4);
  assert.equal(reads, 1, 'counted once from the deployments');

  for (let i = 0; i < 20; i++) await create(`more-${i}`, { min_scale: 1 });
  assert.equal(reads, 1, 'no later create read a deployment');
  assert.equal(await replicas(), 8 + 20);

  // a scale change, up or down, moves the total by its difference
  const held = (await repo.deployments.get(wide))!;
  assert.ok((await roomForDeployment(repo, TENANT, workloadOf(policy, TENANT), { max_scale: 1 }, held)).ok);
  const patched = await patchDeployment(deps, TENANT, wide, { source_config: { resource_spec: { max_scale: 1 } } } as never);
  assert.ok(patched.ok, JSON.stringify(patched));
  assert.equal(await replicas(), 8 + 20 - 3);
  const upAgain = await patchDeployment(deps, TENANT, wide, { source_config: { resource_spec: { max_scale: 6 } } } as never);
  assert.ok(upAgain.ok, JSON.stringify(upAgain));
  assert.equal(await replicas(), 8 + 20 + 2);

  // a removal takes the deployment's replicas off, in the same write
  await deleteDeployment(deps, TENANT, wide, false);
  assert.ok((await deleteDeployment(deps, TENANT, wide, true)).ok);
  assert.equal(await repo.deployments.get(wide), undefined);
  assert.equal(await replicas(), 8 + 20 + 2 - 6);
  assert.equal(reads, 1);
});
