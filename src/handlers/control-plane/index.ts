// Control plane handlers (spec/control-plane.openapi.yaml): deployments, revisions and
// OAuth providers over the store, with the simulated deployer driving revisions.
import type { DeploymentStatus } from '../../../generated/control-plane/types.gen.ts';
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/application.ts';
import { SimulatedDeployer } from '../../domain/control-plane/deployer/simulatedDeployer.ts';
import { ControlPlaneRepository } from '../../domain/control-plane/records.ts';
import { authProviderHandlers } from './authProviders.ts';
import { deploymentHandlers } from './deployments.ts';
import { revisionHandlers } from './revisions.ts';

/** Every DeploymentStatus of the spec. */
const DEPLOYMENT_STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const satisfies readonly DeploymentStatus[];

export async function createControlPlane(deps: AppFactoryDeps): Promise<{ handlers: ControlPlaneHandlers<RequestContext>; modules: BackgroundModule[] }> {
  const repo = new ControlPlaneRepository(deps.store);
  deps.metrics.gauge('agentplane_deployments', 'Deployments by status.', ['status'], () =>
    Promise.all(DEPLOYMENT_STATUSES.map(async (status) => ({ labels: { status }, value: await repo.deployments.count({ where: { status } }) }))),
  );
  const deployer = new SimulatedDeployer(repo, deps.config.phaseMs, deps.log.child({ area: 'deployer' }));
  const domain = { repo, deployer };
  const handlers = { ...deploymentHandlers(domain), ...revisionHandlers(domain), ...authProviderHandlers(repo) };
  return { handlers, modules: [deployer] };
}
