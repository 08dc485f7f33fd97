// What one tenant's deployments may hold together (issue 83): how many deployments, how
// many replicas all of them may ask for, and how many revisions each deployment keeps. Each deployment is a server (and its replicas) on the
// operator's machines; one tenant created ~4,700 deployments in a 25-s flood before. One more
// than a bound is a 403 naming the quota and its setting, and nothing is written: the count and
// the write hold the tenant's lock (withinTenantQuotas), so requests sent at once cannot each
// find room and together pass the bound.
import type { ResourceSpec } from '../../../generated/control-plane/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { putTenantTotals, type ControlPlaneRepository, type DeploymentRecord, type RecordWrite } from './records.ts';
import type { TenantWorkload } from './workloadPolicy.ts';

const SCALE_FIELDS = ['min_scale', 'max_scale', 'queue_min_scale', 'queue_max_scale', 'orchestrator_min_scale', 'orchestrator_max_scale'] as const;

/** The most replicas a resource_spec asks for: the largest of its scale fields, 1 without any. */
export function replicasAskedBy(spec: ResourceSpec | null | undefined): number {
  const scales = SCALE_FIELDS.map((field) => spec?.[field]).filter((n): n is number => typeof n === 'number');
  return Math.max(1, ...scales);
}

function quotaReached(setting: string, held: string, room: string, bound: number) {
  return fail('quota_exceeded', `Quota reached: this tenant ${held}, the most it may (${setting}); ${room}, or ask the operator to raise ${setting}.`, {
    setting,
    limit: bound,
  });
}

/** `write` done under the tenant's quota lock: an innermost lock, taken alone or inside a deployment's, never around another. */
export function withinTenantQuotas<T>(repo: ControlPlaneRepository, tenantId: string, write: () => Promise<T>): Promise<T> {
  return repo.innermostLocks.run(`quota:deployments:${tenantId}`, write);
}

/**
 * Whether the tenant may hold `spec`: a new deployment (`replacing` null) or a new
 * resource_spec of `replacing` (the deployment as stored now, read under its lock). Called
 * under withinTenantQuotas. On success, the write of the tenant's totals after the change, to
 * go in the change's own atomic write: every change of the total is made under that lock, so
 * the total kept is the sum over the deployments stored (removeDeployment's too).
 */
export async function roomForDeployment(
  repo: ControlPlaneRepository,
  tenantId: string,
  workload: TenantWorkload,
  spec: ResourceSpec | null | undefined,
  replacing: DeploymentRecord | null,
): Promise<Outcome<RecordWrite, 'quota_exceeded'>> {
  const { maxDeploymentsPerTenant: most, maxReplicasPerTenant: mostReplicas } = workload;
  // counted first, by the tenant's index: a tenant at its bound that keeps asking is refused
  // without its deployments read (each refusal read up to 201 of them, copies of each made)
  if (!replacing && (await repo.deployments.countOfTenant(tenantId)) >= most) {
    return quotaReached('AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT', `holds ${most} deployments`, 'delete some', most);
  }
  const was = replacing ? replicasAskedBy(replacing.source_config.resource_spec) : 0;
  const others = (await replicasHeld(repo, tenantId)) - was;
  const asked = replicasAskedBy(spec);
  // a lower scale always passes: a tenant over a bound the operator lowered may come down to it
  if (asked > was && others + asked > mostReplicas)
    return quotaReached(
      'AGENTPLANE_MAX_REPLICAS_PER_TENANT',
      `would ask for ${others + asked} replicas over its deployments (${asked} of this one, the largest of its *_min_scale and *_max_scale)`,
      "lower some deployment's scale or delete one",
      mostReplicas,
    );
  return ok(putTenantTotals({ id: tenantId, replicas: others + asked }));
}

/** The replicas the tenant's deployments ask for together: kept, or counted once from them (deployments made before the totals were kept). */
async function replicasHeld(repo: ControlPlaneRepository, tenantId: string): Promise<number> {
  const kept = await repo.tenantTotals.get(tenantId);
  if (kept) return kept.replicas;
  const count = await repo.deployments.countOfTenant(tenantId);
  const held = count === 0 ? [] : await repo.deployments.newestFirst(tenantId, {}, { offset: 0, limit: count });
  return held.reduce((sum, d) => sum + replicasAskedBy(d.source_config.resource_spec), 0);
}

/**
 * Removes the deployment (as stored now, read under its lock) with its revisions, its replicas
 * taken off its tenant's totals in the same write, under the tenant's quota lock.
 */
export function removeDeployment(repo: ControlPlaneRepository, deployment: DeploymentRecord): Promise<void> {
  return withinTenantQuotas(repo, deployment.tenant_id, async () => {
    const kept = await repo.tenantTotals.get(deployment.tenant_id);
    const fewer = kept ? [putTenantTotals({ id: kept.id, replicas: kept.replicas - replicasAskedBy(deployment.source_config.resource_spec) })] : [];
    await repo.remove(deployment.id, fewer);
  });
}

/**
 * Whether the deployment may have one more revision, beside the `held` ones (each PATCH that
 * changes a revision setting and each redeploy adds one, and none is ever deleted but with the
 * deployment). Called under the deployment's lock, which every revision's creation holds.
 */
export function roomForRevision(workload: TenantWorkload, held: readonly unknown[]): Outcome<void, 'quota_exceeded'> {
  const most = workload.maxRevisionsPerDeployment;
  if (held.length < most) return ok(undefined);
  return quotaReached(
    'AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT',
    `holds ${most} revisions of this deployment`,
    'delete the deployment and create it again',
    most,
  );
}
