// Revision operations: list, get, redeploy.
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ControlPlaneDeps } from '../../domain/control-plane/deployments.ts';
import { getRevision, listRevisions, redeployRevision } from '../../domain/control-plane/revisions.ts';
import { tenantOf } from './domainErrors.ts';

type RevisionHandlers = Pick<ControlPlaneHandlers<RequestContext>, 'listRevisions' | 'getRevision' | 'redeployRevision'>;

export function revisionHandlers(deps: ControlPlaneDeps): RevisionHandlers {
  const { repo } = deps;
  return {
    listRevisions: async ({ path, query }, ctx) => ({ status: 200, body: await listRevisions(repo, tenantOf(ctx), path.deployment_id, query) }),
    getRevision: async ({ path }, ctx) => ({ status: 200, body: await getRevision(repo, tenantOf(ctx), path.deployment_id, path.revision_id) }),
    redeployRevision: async ({ path }, ctx) => ({
      status: 200,
      body: await redeployRevision(deps, tenantOf(ctx), path.deployment_id, path.revision_id),
    }),
  };
}
