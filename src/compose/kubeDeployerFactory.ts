// The Kubernetes deployers (AGENTPLANE_DEPLOYER=kubernetes or kube-local): one deployer, two
// targets. What they keep (database passwords, deploy logs, kube-local's played files) lives
// in the data directory, or in a temporary one without it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logger.ts';
import type { ControlPlaneRepository } from '../domain/control-plane/records.ts';
import type { Deployer } from '../domain/control-plane/deployer/types.ts';
import type { KubeTarget } from '../domain/control-plane/kubernetes/kubeTarget.ts';

export async function kubeDeployerFactory(config: ServerConfig, repo: ControlPlaneRepository, log: Logger): Promise<() => Deployer> {
  const root = config.dataDir ? path.join(config.dataDir, 'kube') : fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-kube-'));
  // loaded only when chosen: the Kubernetes client and schemas cost every other server half a second of start-up
  const { kubeDeployer } = await import('../domain/control-plane/kubernetes/kubeDeployer.ts');
  const target: KubeTarget =
    config.deployer === 'kube-local'
      ? new (await import('../domain/control-plane/kubernetes/podmanTarget.ts')).PodmanTarget({ root: path.join(root, 'podman'), env: config.env })
      : (await import('../domain/control-plane/kubernetes/clusterTarget.ts')).ClusterTarget.fromEnvironment(config.env);
  return () =>
    kubeDeployer(
      repo,
      target,
      {
        root: path.join(root, 'deployments'),
        defaultNamespace: config.kube.namespace,
        postgresImage: config.kube.postgresImage,
        rolloutTimeoutMs: config.deployTimeoutMs,
      },
      log.child({ area: 'deployer' }),
    );
}
