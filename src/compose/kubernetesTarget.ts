// The Kubernetes target (AGENTPLANE_DEPLOYER=kubernetes or kube-local): one target, two
// clusters — a real one through the Kubernetes API, or this machine's podman playing the
// manifests. What the target keeps (database passwords, deploy logs, kube-local's played
// files) lives in the data directory, or in a temporary one without it.
import path from 'node:path';
import type { ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logging/logger.ts';
import type { DeployTarget } from '../domain/control-plane/deployTarget.ts';
import type { Cluster } from '../adapters/deploy-targets/kubernetes/cluster.ts';
import { processTempDir } from '../shared/processTempDir.ts';

/** Makes the Kubernetes target over the configured cluster, once per engine. */
export async function kubernetesTargetFactory(config: ServerConfig, log: Logger, keyDigestsOf?: (tenant: string) => string[]): Promise<() => DeployTarget> {
  const root = config.dataDir ? path.join(config.dataDir, 'kube') : processTempDir('agentplane-kube-');
  // loaded only when chosen: the Kubernetes client and schemas cost every other server half a second of start-up
  const { KubernetesTarget } = await import('../adapters/deploy-targets/kubernetes/kubernetesTarget.ts');
  const cluster: Cluster =
    config.deployer === 'kube-local'
      ? new (await import('../adapters/deploy-targets/kubernetes/podmanCluster.ts')).PodmanCluster({ root: path.join(root, 'podman'), env: config.env })
      : (await import('../adapters/deploy-targets/kubernetes/apiCluster.ts')).ApiCluster.fromEnvironment(config.env);
  return () =>
    new KubernetesTarget(
      cluster,
      {
        root: path.join(root, 'deployments'),
        defaultNamespace: config.kube.namespace,
        postgresImage: config.kube.postgresImage,
        policy: config.workloadPolicy,
        rolloutTimeoutMs: config.deployTimeoutMs,
        keyDigestsOf,
      },
      log,
    );
}
