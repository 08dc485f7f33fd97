// Revision operations: list, get, logs, redeploy.
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ControlPlaneDeps } from '../../domain/control-plane/deployments.ts';
import { getRevision, listRevisionLogs, listRevisions, redeployRevision } from '../../domain/control-plane/revisions.ts';
import { answer, tenantOf } from './failures.ts';

type RevisionHandlers = Pick<ControlPlaneHandlers<RequestContext>, 'listRevisions' | 'getRevision' | 'redeployRevision' | 'listRevisionLogs'>;

export function revisionHandlers(deps: ControlPlaneDeps): RevisionHandlers {
  const { repo } = deps;
  return {
    listRevisions: async ({ path, query }, ctx) => answer(200, await listRevisions(repo, tenantOf(ctx), path.deployment_id, query)),
    getRevision: async ({ path }, ctx) => answer(200, await getRevision(repo, tenantOf(ctx), path.deployment_id, path.revision_id)),
    listRevisionLogs: async ({ path, query }, ctx) => answer(200, await listRevisionLogs(deps, tenantOf(ctx), path.deployment_id, path.revision_id, query)),
    redeployRevision: async ({ path }, ctx) => answer(200, await redeployRevision(deps, tenantOf(ctx), path.deployment_id, path.revision_id)),
  };
}
