// Revision operations: list, get, logs, redeploy.
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ControlPlaneDeps } from '../../domain/control-plane/deployments.ts';
import { getRevision, listRevisionLogs, listRevisions, redeployRevision } from '../../domain/control-plane/revisions.ts';
import { revisionManifests, type RenderProblem, type RenderSettings } from '../../domain/control-plane/revisionManifests.ts';
import { answer, failed, tenantOf } from './failures.ts';

type RevisionHandlers = Pick<
  ControlPlaneHandlers<RequestContext>,
  'listRevisions' | 'getRevision' | 'redeployRevision' | 'listRevisionLogs' | 'getRevisionManifests'
>;

export function revisionHandlers(deps: ControlPlaneDeps & { render: RenderSettings }): RevisionHandlers {
  const { repo } = deps;
  return {
    listRevisions: async ({ path, query }, ctx) => answer(200, await listRevisions(repo, tenantOf(ctx), path.deployment_id, query)),
    getRevision: async ({ path }, ctx) => answer(200, await getRevision(repo, tenantOf(ctx), path.deployment_id, path.revision_id)),
    listRevisionLogs: async ({ path, query }, ctx) => answer(200, await listRevisionLogs(deps, tenantOf(ctx), path.deployment_id, path.revision_id, query)),
    redeployRevision: async ({ path }, ctx) => answer(200, await redeployRevision(deps, tenantOf(ctx), path.deployment_id, path.revision_id)),
    getRevisionManifests: async ({ path }, ctx) => {
      const outcome = await revisionManifests(repo, deps.render, tenantOf(ctx), path.deployment_id, path.revision_id);
      if (outcome.ok) return { status: 200, body: outcome.value };
      if (outcome.failure.kind === 'not_found') return failed(outcome.failure as typeof outcome.failure & { kind: 'not_found' });
      // answered like a schema violation, each problem at the stored field (or object) it comes from
      const problems = (outcome.failure.data?.problems ?? []) as RenderProblem[];
      return { status: 422, body: { detail: problems.map((p) => ({ loc: p.loc, msg: p.msg, type: 'refused' })) } };
    },
  };
}
