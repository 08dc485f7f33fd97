// Reading revisions and redeploying one.
import type { Deployment, ListRevisionsQuery, Revision, RevisionList, RevisionStatus } from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from './clock.ts';
import type { ControlPlaneDeps } from './deployments.ts';
import { deploymentNotFound, invalid, revisionNotFound } from './errors.ts';
import { supersedingRevision } from './newRevision.ts';
import type { ControlPlaneRepository, DeploymentRecord, RevisionRecord } from './records.ts';
import { toDeployment, toRevision } from './views.ts';

async function ownedDeployment(repo: ControlPlaneRepository, tenantId: string, id: string): Promise<DeploymentRecord> {
  const deployment = await repo.deploymentOf(tenantId, id);
  if (!deployment) throw deploymentNotFound(id);
  return deployment;
}

async function revisionOf(repo: ControlPlaneRepository, deploymentId: string, revisionId: string): Promise<RevisionRecord> {
  const revision = await repo.revisions.get(revisionId);
  if (!revision || revision.deployment_id !== deploymentId) throw revisionNotFound(revisionId);
  return revision;
}

export async function listRevisions(repo: ControlPlaneRepository, tenantId: string, deploymentId: string, query: ListRevisionsQuery): Promise<RevisionList> {
  const deployment = await ownedDeployment(repo, tenantId, deploymentId);
  const offset = query.offset ?? 0;
  // remote reconciliation is a property of the deployment: all of its revisions or none
  if (query.remote_reconciled !== undefined && (deployment.source_config.listener_id !== null) !== query.remote_reconciled) {
    return { resources: [], offset };
  }
  const statuses = query.status ? new Set(query.status.split(',') as RevisionStatus[]) : undefined;
  const records = await repo.revisions.list({
    where: { deployment_id: deploymentId },
    reverse: true,
    filter: statuses && ((r) => statuses.has(r.status)),
    offset,
    limit: query.limit ?? 20,
  });
  return { resources: records.map(toRevision), offset: offset + records.length };
}

export async function getRevision(repo: ControlPlaneRepository, tenantId: string, deploymentId: string, revisionId: string): Promise<Revision> {
  await ownedDeployment(repo, tenantId, deploymentId);
  return toRevision(await revisionOf(repo, deploymentId, revisionId));
}

/** A new revision with the settings of a deployed one; it reuses that image (no build). */
export async function redeployRevision({ repo, deployer }: ControlPlaneDeps, tenantId: string, deploymentId: string, revisionId: string): Promise<Deployment> {
  return repo.locks.run(deploymentId, async () => {
    const deployment = await ownedDeployment(repo, tenantId, deploymentId);
    const original = await revisionOf(repo, deploymentId, revisionId);
    if (deployment.status === 'AWAITING_DELETE') throw invalid(`Deployment ID ${deploymentId} is being deleted and cannot be redeployed.`);
    if (original.status !== 'DEPLOYED') {
      throw invalid(`Revision ID ${revisionId} has status ${original.status}; only a revision that reached DEPLOYED can be redeployed.`);
    }
    const siblings = await repo.revisionsOf(deploymentId);
    const plan = supersedingRevision(deployment, siblings, original.source_revision_config, original.id, timestamp());
    await repo.store.write(plan.ops);
    deployer.submit(plan.revision);
    return toDeployment(plan.deployment, plan.revision);
  });
}
