// What an operator reads in the server log about deployments: one info line when a
// deployment or revision is created, at each status change of either, and when a
// deployment is gone, each with the ids and, for a failure, its reason (the status_message
// the client sees). Both deployers and the request handlers write through these.
import type { Logger } from '../ports/logger.ts';
import type { DeploymentRecord, RevisionRecord } from './records.ts';

const failed = (status: string) => status.endsWith('_FAILED');

export function logDeploymentCreated(log: Logger, deployment: DeploymentRecord, revision: RevisionRecord): void {
  log.info('deployment created', {
    deployment_id: deployment.id,
    tenant_id: deployment.tenant_id,
    name: deployment.name,
    source: deployment.source,
    status: deployment.status,
    revision_id: revision.id,
    revision_status: revision.status,
  });
}

/** A new revision of a deployment (PATCH or redeploy), and the revisions it superseded. */
export function logRevisionCreated(log: Logger, revision: RevisionRecord, superseded: readonly RevisionRecord[]): void {
  log.info('revision created', {
    deployment_id: revision.deployment_id,
    revision_id: revision.id,
    status: revision.status,
    redeploy_of: revision.redeploy_of,
    ...(superseded.length ? { superseded: superseded.map((r) => r.id) } : {}),
  });
}

/** A revision's status change and, when it moved too, its deployment's. */
export function logTransition(
  log: Logger,
  before: RevisionRecord,
  after: RevisionRecord,
  deployment?: { before: DeploymentRecord; after?: DeploymentRecord },
): void {
  if (before.status !== after.status) {
    const fields = {
      deployment_id: after.deployment_id,
      revision_id: after.id,
      from: before.status,
      status: after.status,
      status_message: after.status_message,
    };
    log.info(failed(after.status) ? 'revision failed' : 'revision status', failed(after.status) ? { ...fields, reason: after.status_message } : fields);
  }
  if (deployment?.after) logDeploymentStatus(log, deployment.before, deployment.after.status);
}

export function logDeploymentStatus(log: Logger, before: DeploymentRecord, status: DeploymentRecord['status']): void {
  if (before.status !== status) log.info('deployment status', { deployment_id: before.id, from: before.status, status });
}

export function logDeploymentDeleted(log: Logger, deploymentId: string, how: 'cleaned up' | 'forced'): void {
  log.info('deployment deleted', { deployment_id: deploymentId, how });
}
