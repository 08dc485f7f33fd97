// Where rendered manifests run: a Kubernetes cluster (apiCluster.ts, through the official
// client) or this machine's podman (podmanCluster.ts, `podman kube play`). The target does
// the same with either.
import type { Manifest } from '../../../domain/control-plane/kubernetes/renderManifests.ts';
import type { Logger } from '../../../domain/ports/logger.ts';

export interface Applied {
  /** The deployment's agent server's address, as the platform gives it. */
  url: string;
}

/** Rolled out (with the server's address) or why not; `pending` while it is still going. */
export type RolloutState = { state: 'ready'; url: string } | { state: 'pending'; reason: string } | { state: 'failed'; reason: string };

export interface Cluster {
  /** One line for the start log: where deployments run. */
  describe(): string;
  /** Starts looking after what it runs, where nothing else does (kube-local: a stopped pod is started again). */
  start?(log: Logger): void;
  /** Stops looking after it (the control plane stops). */
  stop?(): Promise<void>;
  /** Applies (or replaces) the deployment's objects; `say` writes to the revision's deploy log. */
  apply(deploymentId: string, namespace: string, manifests: Manifest[], say: (line: string) => void): Promise<void>;
  /** Where the rollout of the deployment's server is, from the workloads' and pods' own status. */
  rollout(deploymentId: string, namespace: string): Promise<RolloutState>;
  /** The server containers' log lines, oldest first. */
  logs(deploymentId: string, namespace: string): Promise<string[]>;
  /** Removes every object of the deployment (nothing of it is left afterwards). */
  remove(deploymentId: string, namespace: string): Promise<void>;
}
