// The control plane's services wired over the ports (spec/control-plane.openapi.yaml): deployments,
// revisions and OAuth providers over the store, with the configured deployer driving revisions;
// composeControlPlane (controlPlane.ts beside this) makes them an area.
import type { DeploymentStatus } from '../../../generated/control-plane/types.gen.ts';
import { handledOperationIds as controlPlaneIds, type ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { BackgroundModule } from '../../runtime/application.ts';
import type { AppFactoryDeps } from '../area.ts';
import path from 'node:path';
import fs from 'node:fs';
import { simulatedTarget } from '../../adapters/deploy-targets/simulated/simulatedTarget.ts';
import { RevisionEngine, type Leadership, type Ownership } from '../../domain/control-plane/revisionEngine.ts';
import type { DeployTarget } from '../../domain/control-plane/deployTarget.ts';
import type { Logger } from '../../runtime/logging/logger.ts';
import { DEFAULT_LIMITS, isolationMode } from '../../adapters/deploy-targets/shared/sandbox.ts';
import { PACKAGE_ROOT, packagePath } from '../../runtime/packageRoot.ts';
import type { ControlPlaneRepository } from '../../domain/control-plane/records.ts';
import { CollectionControlPlane } from '../../adapters/embedded/collectionControlPlane.ts';
import type { DevProvider } from '../../domain/ports/devProvider.ts';
import { createAgentAuth, type AgentAuth } from '../../domain/control-plane/agentAuth/agentAuth.ts';
import type { StandInProvider } from '../../domain/control-plane/agentAuth/standInProvider.ts';
import { CollectionAuthFlows } from '../../adapters/embedded/collectionAuthFlows.ts';
import { CollectionAuthTokens } from '../../adapters/embedded/collectionAuthTokens.ts';
import type { OAuthClient } from '../../domain/ports/oauthClient.ts';
import { listenerOwnership, locallyReconciled } from '../../domain/control-plane/deployer/remoteReconciliation.ts';
import { ListenerWatch } from '../../domain/control-plane/listenerWatch.ts';
import { RemoteLogFiles } from '../../adapters/log-files/remoteLogFiles.ts';
import { LOG_CAP_BYTES } from '../../domain/control-plane/deployer/revisionLogs.ts';
import { kubernetesTargetFactory } from '../kubernetesTarget.ts';
import { lazyDeployTarget } from './lazyDeployTarget.ts';
import { lazyHandlers } from './lazyHandlers.ts';
import { processTempDir } from '../../shared/processTempDir.ts';

/** Every DeploymentStatus of the spec. */
const DEPLOYMENT_STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const satisfies readonly DeploymentStatus[];

/** What the composition root adds: the adapter the auth service talks to authorization servers through. */
export interface ControlPlaneAdapters {
  oauth: OAuthClient;
  /** The development provider, when this server offers it (AGENTPLANE_DEV_OAUTH). */
  standIn?: StandInProvider | null;
  /** The development provider's pages and token endpoint, when this server offers it. */
  devProvider?: DevProvider | null;
}

export async function createControlPlane(
  deps: AppFactoryDeps,
  adapters: ControlPlaneAdapters,
): Promise<{ handlers: ControlPlaneHandlers<RequestContext>; modules: BackgroundModule[]; agentAuth: AgentAuth }> {
  // on PostgreSQL the deployments list runs in SQL; the embedded store's over its collection
  const repo = new CollectionControlPlane(deps.store, { run: (key, work) => deps.coordination.serialize(`cp:${key}`, work) }, deps.queries.deployments, {
    run: (key, work) => deps.coordination.serialize(`cp:${key}`, work, { innermost: true }),
  });
  deps.metrics.gauge('agentplane_deployments', 'Deployments by status.', ['status'], () =>
    Promise.all(DEPLOYMENT_STATUSES.map(async (status) => ({ labels: { status }, value: await repo.deployments.countWithStatus(status) }))),
  );
  const { dataDir } = deps.config;
  const remoteLogs = new RemoteLogFiles(() => (dataDir ? path.join(dataDir, 'listener-logs') : processTempDir('agentplane-listener-logs-')));
  // one server at a time drives revisions, among those sharing the store; deployments a
  // listener reconciles are out of its sight (remoteReconciliation.ts)
  const deployer = await chooseRevisionEngine(deps, locallyReconciled(repo), {
    leadership: { coordination: deps.coordination, repo },
    ownership: listenerOwnership(repo, remoteLogs),
  });
  const log = deps.log.child({ area: 'control-plane' });
  const policy = deps.config.workloadPolicy;
  const domain = { repo, deployer, log, target: deps.config.deployer, policy };
  const render = {
    defaultNamespace: deps.config.kube.namespace,
    postgresImage: deps.config.kube.postgresImage,
    policy,
    keyDigestsOf: deployedKeyDigests(deps),
  };
  const { tokenKey, tokenKeyIsNew, previousTokenKeys } = deps.config.agentAuth;
  const agentAuth = await createAgentAuth({
    repo,
    flows: new CollectionAuthFlows(deps.store),
    tokens: new CollectionAuthTokens(deps.store),
    coordination: deps.coordination,
    oauth: adapters.oauth,
    tokenKey,
    tokenKeyIsNew: tokenKeyIsNew ?? false,
    previousTokenKeys,
    allowHttp: deps.config.agentAuth.allowHttp,
    quotas: deps.config.tenantQuotas,
    soleOwner: !deps.config.databaseUrl,
    standIn: adapters.standIn ?? null,
    log: deps.log.child({ area: 'agent-auth' }),
  });
  // the handlers' modules load once the server answers, or at a control-plane request before
  // (lazyHandlers.ts); everything above, which can refuse a start, is made now
  const { handlers, load: loadHandlers } = lazyHandlers<ControlPlaneHandlers<RequestContext>>(controlPlaneIds, async () => {
    const [deployments, revisions, authProviders, agentAuthPages, devProviderPages, listeners, { LogBudget }] = await Promise.all([
      import('../../handlers/control-plane/deployments.ts'),
      import('../../handlers/control-plane/revisions.ts'),
      import('../../handlers/control-plane/authProviders.ts'),
      import('../../handlers/control-plane/agentAuth.ts'),
      import('../../handlers/control-plane/devProvider.ts'),
      import('../../handlers/control-plane/listeners.ts'),
      import('../../domain/control-plane/listenerLogBudget.ts'),
    ]);
    return {
      ...deployments.deploymentHandlers(domain),
      ...revisions.revisionHandlers({ ...domain, render }),
      ...authProviders.authProviderHandlers(repo, agentAuth.forgetProvider, agentAuth.providerRules),
      ...agentAuthPages.agentAuthHandlers(repo, agentAuth),
      ...devProviderPages.devProviderHandlers(adapters.devProvider ?? null),
      ...listeners.listenerHandlers({ repo, remoteLogs, logBudget: new LogBudget(), log }, deps.config.tenantQuotas),
    };
  });
  const watch = new ListenerWatch(repo, deps.config.listenerTimeoutMs, log);
  // with the control plane switched off (a deployed agent server) nothing drives revisions
  return { handlers, modules: deps.config.controlPlane ? [deployer, watchOnceAnswering(watch, loadHandlers, log)] : [], agentAuth };
}

/**
 * The listeners' watch, begun once the handlers their reports reach have loaded: those load as
 * the server answers its first requests (no control-plane request then waits for them), and a
 * listener's silence is counted from the moment its reports can be answered, as it was counted
 * from the server's answering when the handlers came with the start.
 */
function watchOnceAnswering(watch: ListenerWatch, loadHandlers: () => Promise<unknown>, log: Logger): BackgroundModule {
  let begun: Promise<void> | undefined;
  return {
    start: () => {
      begun = loadHandlers().then(
        () => watch.start(),
        (err: unknown) => {
          log.error('the control plane’s handlers did not load', { err });
          watch.start();
        },
      );
    },
    stop: async () => {
      await begun;
      await watch.stop();
    },
  };
}

/** The configured deployer: the revision engine over the configured target, made fresh for each term of leadership (and once to read logs with); a listener makes its own, alone, without either option. */
export async function chooseRevisionEngine(
  deps: Pick<AppFactoryDeps, 'config' | 'log' | 'keyDigestsOf'>,
  repo: ControlPlaneRepository,
  options: { leadership?: Leadership; ownership?: Ownership } = {},
): Promise<RevisionEngine> {
  const { config } = deps;
  const log = deps.log.child({ area: 'deployer' });
  // the simulated target answers at once: the engine paces its phases; the others retry a failed step after a second (doubling)
  const pacing = config.deployer === 'simulated' ? { retryMs: 200, stepDelayMs: config.phaseMs } : { retryMs: 1_000 };
  const kube = config.deployer === 'kubernetes' || config.deployer === 'kube-local';
  // the Kubernetes target loads its client only when chosen
  const keyDigestsOf = deployedKeyDigests(deps);
  const target = kube ? await kubernetesTargetFactory(config, log, keyDigestsOf) : targetFactory(config, repo, log, keyDigestsOf);
  return new RevisionEngine(repo, target, log, { ...pacing, ...options });
}

/** The digests of a tenant's keys, which the servers it deploys answer (AGENTPLANE_DEPLOYMENT_AUTH, on by default); none from a listener, which holds no key. */
function deployedKeyDigests(deps: Pick<AppFactoryDeps, 'config' | 'keyDigestsOf'>): ((tenant: string) => string[]) | undefined {
  return deps.config.deploymentAuth ? deps.keyDigestsOf : undefined;
}

/** Makes the configured target of this machine (simulated, local or container). */
function targetFactory(
  config: AppFactoryDeps['config'],
  repo: ControlPlaneRepository,
  log: Logger,
  keyDigestsOf?: (tenant: string) => string[],
): () => DeployTarget {
  if (config.deployer === 'simulated') return () => simulatedTarget;
  // a setting that cannot be honoured (user isolation without root) stops the start
  const isolation = isolationMode(config.deployerIsolation, process.getuid?.() === 0);
  // without a data directory the deployments live in a temporary one, gone with the process
  let temporary: string | undefined;
  const temp = () => {
    if (temporary) return temporary;
    temporary = processTempDir('agentplane-deployments-');
    fs.chmodSync(temporary, 0o711); // passable to the workspaces inside; its control part stays 0700
    return temporary;
  };
  const root = () => (config.dataDir ? path.join(config.dataDir, 'deployments') : path.join(temp(), 'control'));
  // the workspaces are outside the data directory: the deployments' users must reach them, and never it
  const workspaces = () => config.deploymentsDir ?? (config.dataDir ? `${config.dataDir}-deployments` : path.join(temp(), 'workspaces'));
  // the local and container targets' modules load at the engine's first use of its target (lazyDeployTarget.ts)
  if (config.deployer === 'container') {
    let engine: Promise<import('../../adapters/images/engine.ts').ContainerEngine> | undefined;
    // one engine for every term's target, as the target's own modules, made at its first use
    const engineOnce = () =>
      (engine ??= import('../../adapters/images/engine.ts').then(
        // the engine's CLI gets the operator's environment, none of agentplane's own settings
        ({ ContainerEngine, withoutOwnSettings }) =>
          new ContainerEngine({ name: 'podman', env: withoutOwnSettings(config.env), containersConf: packagePath('config', 'containers.conf') }),
      ));
    return () =>
      lazyDeployTarget(async () => {
        const [{ ContainerTarget }, containerEngine] = await Promise.all([import('../../adapters/deploy-targets/container/containerTarget.ts'), engineOnce()]);
        return new ContainerTarget(
          repo,
          {
            root: root(),
            workspaces: workspaces(),
            isolation,
            baseEnv: config.env,
            engine: containerEngine,
            packageRoot: PACKAGE_ROOT,
            buildTimeoutMs: config.buildTimeoutMs,
            startTimeoutMs: config.deployTimeoutMs,
            logCapBytes: LOG_CAP_BYTES,
            policy: config.workloadPolicy,
            keyDigestsOf,
          },
          log,
        );
      });
  }
  return () =>
    lazyDeployTarget(async () => {
      const { LocalTarget } = await import('../../adapters/deploy-targets/local/localTarget.ts');
      return new LocalTarget(
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
          logCapBytes: LOG_CAP_BYTES,
          baseEnv: config.env,
          policy: config.workloadPolicy,
          keyDigestsOf,
        },
        log,
      );
    });
}
