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
import { createDeployment, type ControlPlaneDeps } from '../../../src/domain/control-plane/deployments.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';

const TENANT = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';

test('a tenant at its bound of deployments is refused without its deployments read; below it, the replicas are summed', async () => {
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
  // a change of one held is not a new deployment: the replicas are summed over what it holds
  const [held] = await newestFirst(TENANT, {}, { offset: 0, limit: 1 });
  assert.ok((await roomForDeployment(repo, TENANT, workload, { max_scale: 1 }, held!)).ok);
  assert.equal(reads, 1);
});
