// Control plane handlers (spec/control-plane.openapi.yaml): deployments, revisions and
// OAuth providers over the store, with the configured deployer driving revisions.
import type { DeploymentStatus } from '../../../generated/control-plane/types.gen.ts';
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/application.ts';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { SimulatedDeployer } from '../../domain/control-plane/deployer/simulatedDeployer.ts';
import { LocalDeployer } from '../../domain/control-plane/deployer/localDeployer.ts';
import type { Deployer } from '../../domain/control-plane/deployer/types.ts';
import { DEFAULT_LIMITS, isolationMode } from '../../domain/control-plane/deployer/sandbox.ts';
import { LeadingDeployer } from '../../domain/control-plane/deployer/leadingDeployer.ts';
import { packagePath } from '../../runtime/packageRoot.ts';
import { ControlPlaneRepository } from '../../domain/control-plane/records.ts';
import { PgStore } from '../../runtime/store/pgStore.ts';
import { PgDeployments } from '../../runtime/store/pgDeployments.ts';
import { authProviderHandlers } from './authProviders.ts';
import { deploymentHandlers } from './deployments.ts';
import { revisionHandlers } from './revisions.ts';

/** Every DeploymentStatus of the spec. */
const DEPLOYMENT_STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const satisfies readonly DeploymentStatus[];

export async function createControlPlane(deps: AppFactoryDeps): Promise<{ handlers: ControlPlaneHandlers<RequestContext>; modules: BackgroundModule[] }> {
  // on PostgreSQL the deployments list runs in SQL; the embedded store's over its collection
  const queries = deps.store instanceof PgStore ? new PgDeployments(deps.store) : undefined;
  const repo = new ControlPlaneRepository(deps.store, { run: (key, work) => deps.coordination.serialize(`cp:${key}`, work) }, queries);
  deps.metrics.gauge('agentplane_deployments', 'Deployments by status.', ['status'], () =>
    Promise.all(DEPLOYMENT_STATUSES.map(async (status) => ({ labels: { status }, value: await repo.deployments.count({ where: { status } }) }))),
  );
  // one server at a time drives revisions, among those sharing the store
  const deployer = new LeadingDeployer(repo, deps.coordination, deps.log.child({ area: 'deployer' }), deployerFactory(deps, repo));
  const domain = { repo, deployer, log: deps.log.child({ area: 'control-plane' }) };
  const handlers = { ...deploymentHandlers(domain), ...revisionHandlers(domain), ...authProviderHandlers(repo) };
  // with the control plane switched off (a deployed agent server) nothing drives revisions
  return { handlers, modules: deps.config.controlPlane ? [deployer] : [] };
}

/** Makes the configured deployer, once per term of leadership (and once to read logs with). */
function deployerFactory({ config, log }: AppFactoryDeps, repo: ControlPlaneRepository): () => Deployer {
  if (config.deployer === 'simulated') return () => new SimulatedDeployer(repo, config.phaseMs, log.child({ area: 'deployer' }));
  // a setting that cannot be honoured (user isolation without root) stops the start
  const isolation = isolationMode(config.deployerIsolation, process.getuid?.() === 0);
  // without a data directory the deployments live in a temporary one, gone with the process
  let temporary: string | undefined;
  const temp = () => {
    if (temporary) return temporary;
    temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-deployments-'));
    fs.chmodSync(temporary, 0o711); // passable to the workspaces inside; its control part stays 0700
    return temporary;
  };
  const root = () => (config.dataDir ? path.join(config.dataDir, 'deployments') : path.join(temp(), 'control'));
  // the workspaces are outside the data directory: the deployments' users must reach them, and never it
  const workspaces = () => config.deploymentsDir ?? (config.dataDir ? `${config.dataDir}-deployments` : path.join(temp(), 'workspaces'));
  return () => new LocalDeployer(
    repo,
    {
      root: root(),
      workspaces: workspaces(),
      isolation,
      limits: DEFAULT_LIMITS,
      // the deployed agent servers are this same agentplane, run by the same Node.js
      agentCommand: { command: process.execPath, args: [packagePath('bin/agentplane.js')] },
      buildTimeoutMs: config.buildTimeoutMs,
      startTimeoutMs: config.deployTimeoutMs,
      logCapBytes: 10 * 1024 * 1024,
      baseEnv: config.env,
    },
    log.child({ area: 'deployer' }),
  );
}
