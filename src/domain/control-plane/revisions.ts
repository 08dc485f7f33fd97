// Reading revisions and redeploying one.
import type {
  Deployment,
  ListRevisionLogsQuery,
  ListRevisionsQuery,
  Revision,
  RevisionList,
  RevisionLogs,
  RevisionStatus,
} from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from '../clock.ts';
import { ownerOf, type ControlPlaneDeps } from './deployments.ts';
import { ok, type Outcome } from '../outcome.ts';
import { deploymentNotFound, invalid, revisionNotFound } from './failures.ts';
import { supersedingRevision } from './newRevision.ts';
import { logRevisionCreated } from './transitionLog.ts';
import type { ControlPlaneRepository, DeploymentRecord, RevisionRecord } from './records.ts';
import { toDeployment, toRevision } from './views.ts';
import { checkTenantBoundary } from './sourceRules.ts';
import { roomForRevision } from './deploymentQuotas.ts';

async function ownedDeployment(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<Outcome<DeploymentRecord, 'not_found'>> {
  const deployment = await repo.deployments.ofTenant(tenantId, id);
  return deployment ? ok(deployment) : deploymentNotFound(id);
}

async function revisionOf(repo: ControlPlaneRepository, deploymentId: string, revisionId: string): Promise<Outcome<RevisionRecord, 'not_found'>> {
  const revision = await repo.revisions.get(revisionId);
  return revision && revision.deployment_id === deploymentId ? ok(revision) : revisionNotFound(revisionId);
}

export async function listRevisions(
  repo: ControlPlaneRepository,
  tenantId: string,
  deploymentId: string,
  query: ListRevisionsQuery,
): Promise<Outcome<RevisionList, 'not_found'>> {
  const owned = await ownedDeployment(repo, tenantId, deploymentId);
  if (!owned.ok) return owned;
  const deployment = owned.value;
  const offset = query.offset ?? 0;
  // remote reconciliation is a property of the deployment: all of its revisions or none
  if (query.remote_reconciled !== undefined && (deployment.source_config.listener_id !== null) !== query.remote_reconciled) {
    return ok({ resources: [], offset });
  }
  const statuses = query.status ? new Set(query.status.split(',') as RevisionStatus[]) : undefined;
  const records = await repo.revisions.newestFirst(deploymentId, statuses && ((r) => statuses.has(r.status)), { offset, limit: query.limit ?? 20 });
  return ok({ resources: records.map(toRevision), offset: offset + records.length });
}

export async function getRevision(
  repo: ControlPlaneRepository,
  tenantId: string,
  deploymentId: string,
  revisionId: string,
): Promise<Outcome<Revision, 'not_found'>> {
  const owned = await ownedDeployment(repo, tenantId, deploymentId);
  if (!owned.ok) return owned;
  const revision = await revisionOf(repo, deploymentId, revisionId);
  return revision.ok ? ok(toRevision(revision.value)) : revision;
}

/** A page of the revision's build or server log, as its deployer kept it. */
export async function listRevisionLogs(
  { repo, deployer }: ControlPlaneDeps,
  tenantId: string,
  deploymentId: string,
  revisionId: string,
  query: ListRevisionLogsQuery,
): Promise<Outcome<RevisionLogs, 'not_found'>> {
  const owned = await ownedDeployment(repo, tenantId, deploymentId);
  if (!owned.ok) return owned;
  const revision = await revisionOf(repo, deploymentId, revisionId);
  if (!revision.ok) return revision;
  const { type, ...request } = query;
  return ok(await deployer.readLogs(revision.value, type, request));
}

/** A new revision with the settings of a deployed one; it reuses that image (no build). */
export async function redeployRevision(
  deps: ControlPlaneDeps,
  tenantId: string,
  deploymentId: string,
  revisionId: string,
): Promise<Outcome<Deployment, 'not_found' | 'invalid' | 'unprocessable' | 'quota_exceeded'>> {
  const { repo, deployer, log } = deps;
  return repo.locks.run(deploymentId, async () => {
    const owned = await ownedDeployment(repo, tenantId, deploymentId);
    if (!owned.ok) return owned;
    const found = await revisionOf(repo, deploymentId, revisionId);
    if (!found.ok) return found;
    const [deployment, original] = [owned.value, found.value];
    if (deployment.status === 'AWAITING_DELETE') return invalid(`Deployment ID ${deploymentId} is being deleted and cannot be redeployed.`);
    if (original.status !== 'DEPLOYED') {
      return invalid(`Revision ID ${revisionId} has status ${original.status}; only a revision that reached DEPLOYED can be redeployed.`);
    }
    // the new revision renders the stored resource_spec and runs the revision's image: stored before a rule existed, they are refused, nothing is stored
    const owner = ownerOf(deps, tenantId, deployment.id, Boolean(deployment.source_config.listener_id));
    const outside = checkTenantBoundary(
      { resource_spec: deployment.source_config.resource_spec, listener_config: deployment.source_config.listener_config },
      original.source_revision_config.image_uri,
      owner,
    );
    if (outside) return outside;
    const siblings = await repo.revisions.ofDeployment(deploymentId);
    const roomForOneMore = roomForRevision(owner.workload, siblings);
    if (!roomForOneMore.ok) return roomForOneMore;
    const plan = supersedingRevision(deployment, siblings, original.source_revision_config, original.id, timestamp());
    await repo.write(plan.ops);
    logRevisionCreated(log, plan.revision, plan.skipped);
    deployer.submit(plan.revision);
    return ok(toDeployment(plan.deployment, plan.revision));
  });
}
