// Deployment operations: list, create, get, patch, delete.
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import { createDeployment, deleteDeployment, getDeployment, listDeployments, type ControlPlaneDeps } from '../../domain/control-plane/deployments.ts';
import { patchDeployment } from '../../domain/control-plane/patchDeployment.ts';
import { answer, failed, tenantOf } from './failures.ts';

type DeploymentHandlers = Pick<
  ControlPlaneHandlers<RequestContext>,
  'listDeployments' | 'createDeployment' | 'getDeployment' | 'patchDeployment' | 'deleteDeployment'
>;

export function deploymentHandlers(deps: ControlPlaneDeps): DeploymentHandlers {
  const { repo } = deps;
  return {
    listDeployments: async ({ query }, ctx) => ({ status: 200, body: await listDeployments(repo, tenantOf(ctx), query) }),
    createDeployment: async ({ body }, ctx) => answer(201, await createDeployment(deps, tenantOf(ctx), body, ctx.baseUrl)),
    getDeployment: async ({ path }, ctx) => answer(200, await getDeployment(repo, tenantOf(ctx), path.deployment_id)),
    patchDeployment: async ({ path, body }, ctx) => answer(200, await patchDeployment(deps, tenantOf(ctx), path.deployment_id, body)),
    deleteDeployment: async ({ path, query }, ctx) => {
      // tracing projects are not modelled here, so delete_tracing_project has nothing to remove
      const deleted = await deleteDeployment(deps, tenantOf(ctx), path.deployment_id, query.force ?? false);
      return deleted.ok ? { status: 204 } : failed(deleted.failure);
    },
  };
}
