// A new revision of an existing deployment (PATCH or redeploy): the writes that store it,
// point the deployment at it and supersede revisions that have not started yet.
import { randomUUID } from 'node:crypto';
import type { SourceRevisionConfig } from '../../../generated/control-plane/types.gen.ts';
import { NOT_STARTED } from './revisionStateMachine.ts';
import { putDeployment, putRevision, type DeploymentRecord, type RecordWrite, type RevisionRecord } from './records.ts';

export function firstRevision(deployment: DeploymentRecord, config: Required<SourceRevisionConfig>): RevisionRecord {
  return {
    id: randomUUID(),
    deployment_id: deployment.id,
    tenant_id: deployment.tenant_id,
    created_at: deployment.created_at,
    updated_at: deployment.created_at,
    status: 'CREATING',
    status_message: null,
    source: deployment.source,
    source_revision_config: config,
    redeploy_of: null,
  };
}

export interface NewRevision {
  revision: RevisionRecord;
  deployment: DeploymentRecord;
  /** The revisions that had not started and are SKIPPED now. */
  skipped: RevisionRecord[];
  ops: RecordWrite[];
}

/** `deployment` already carries the other changes of the request; `now` is its updated_at. */
export function supersedingRevision(
  deployment: DeploymentRecord,
  siblings: readonly RevisionRecord[],
  config: Required<SourceRevisionConfig>,
  redeployOf: string | null,
  now: string,
): NewRevision {
  const revision: RevisionRecord = { ...firstRevision(deployment, config), created_at: now, updated_at: now, redeploy_of: redeployOf };
  const next: DeploymentRecord = { ...deployment, latest_revision_id: revision.id, updated_at: now };
  const skipped = siblings
    .filter((r) => NOT_STARTED.has(r.status))
    .map((r): RevisionRecord => ({ ...r, status: 'SKIPPED', status_message: `Superseded by revision ${revision.id}.`, updated_at: now }));
  return { revision, deployment: next, skipped, ops: [...skipped.map(putRevision), putRevision(revision), putDeployment(next)] };
}
