// kubernetes: the rendered manifests applied to the cluster of a kubeconfig with the official
// client (@kubernetes/client-node), by server-side apply (field manager `agentplane`, forced:
// agentplane owns the fields it renders). The rollout is read from every Deployment's
// status and the database StatefulSet's, each labelled with the deployment's id (observed
// generation, updated and available replicas, the Progressing condition), and their pods'
// container states; logs are the server containers' logs; delete removes every
// object labelled with the deployment's id.
import { AppsV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import type { Cluster, RolloutState } from './cluster.ts';
import { objectNames, SERVER_PORT, type Manifest } from '../../../domain/control-plane/kubernetes/renderManifests.ts';

export const FIELD_MANAGER = 'agentplane';

/** Kinds agentplane creates, in the order they are deleted (workloads first, what they use last). */
const KINDS: [apiVersion: string, kind: string][] = [
  ['autoscaling/v2', 'HorizontalPodAutoscaler'],
  ['policy/v1', 'PodDisruptionBudget'],
  ['apps/v1', 'Deployment'],
  ['apps/v1', 'StatefulSet'],
  ['v1', 'Service'],
  ['v1', 'Secret'],
  ['v1', 'PersistentVolumeClaim'],
  // last: the deployment's pods stay fenced in until they are gone
  ['networking.k8s.io/v1', 'NetworkPolicy'],
];

// pods that wait like this will not get better by waiting
const HOPELESS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CrashLoopBackOff', 'CreateContainerConfigError', 'CreateContainerError']);

export class ApiCluster implements Cluster {
  private readonly objects: KubernetesObjectApi;
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;

  constructor(private readonly kubeconfig: KubeConfig) {
    this.objects = KubernetesObjectApi.makeApiClient(kubeconfig);
    this.apps = kubeconfig.makeApiClient(AppsV1Api);
    this.core = kubeconfig.makeApiClient(CoreV1Api);
  }

  /** The kubeconfig file KUBECONFIG names (of the server's environment), else ~/.kube/config, else the pod's service account. */
  static fromEnvironment(env: Record<string, string | undefined>): ApiCluster {
    const kubeconfig = new KubeConfig();
    if (env.KUBECONFIG && !env.KUBECONFIG.includes(':')) kubeconfig.loadFromFile(env.KUBECONFIG);
    else kubeconfig.loadFromDefault();
    return new ApiCluster(kubeconfig);
  }

  describe(): string {
    return `kubernetes deployer: manifests are applied to ${this.kubeconfig.getCurrentCluster()?.server ?? 'no cluster (the kubeconfig names none)'} (context ${this.kubeconfig.getCurrentContext()})`;
  }

  async apply(_deploymentId: string, _namespace: string, manifests: Manifest[], say: (line: string) => void): Promise<void> {
    for (const manifest of manifests) {
      await this.objects.patch(manifest as KubernetesObject, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
      say(`applied ${manifest.kind}/${manifest.metadata.name}`);
    }
  }

  async rollout(deploymentId: string, namespace: string): Promise<RolloutState> {
    const labelSelector = `agentplane.dev/deployment-id=${deploymentId}`;
    // every workload of the deployment: the server, the queue workers, the database
    const [deployments, statefulSets, pods] = await Promise.all([
      this.apps.listNamespacedDeployment({ namespace, labelSelector }),
      this.apps.listNamespacedStatefulSet({ namespace, labelSelector }),
      this.core.listNamespacedPod({ namespace, labelSelector }),
    ]);
    for (const pod of pods.items) {
      for (const container of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
        const waiting = container.state?.waiting;
        if (waiting?.reason && HOPELESS.has(waiting.reason))
          return {
            state: 'failed',
            reason: `pod ${pod.metadata?.name} container ${container.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
          };
      }
    }
    const workloads = [
      ...deployments.items.map((w) => ({
        kind: 'Deployment',
        metadata: w.metadata,
        wanted: w.spec?.replicas ?? 1,
        status: w.status,
        available: w.status?.availableReplicas,
      })),
      ...statefulSets.items.map((w) => ({
        kind: 'StatefulSet',
        metadata: w.metadata,
        wanted: w.spec?.replicas ?? 1,
        status: w.status,
        available: w.status?.readyReplicas,
      })),
    ];
    for (const { kind, metadata, wanted, status, available } of workloads) {
      const name = `${kind} ${metadata?.name}`;
      const stuck = status?.conditions?.find((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
      if (stuck) return { state: 'failed', reason: `${name}: ${stuck.message ?? 'progress deadline exceeded'}` };
      const generation = metadata?.generation ?? 0;
      if ((status?.observedGeneration ?? 0) < generation)
        return { state: 'pending', reason: `${name}: waiting for the controller to observe generation ${generation}` };
      if ((status?.updatedReplicas ?? 0) < wanted)
        return { state: 'pending', reason: `${name}: ${status?.updatedReplicas ?? 0} of ${wanted} replicas updated` };
      if ((available ?? 0) < wanted) return { state: 'pending', reason: `${name}: ${available ?? 0} of ${wanted} replicas available` };
    }
    if (deployments.items.length === 0) return { state: 'pending', reason: 'no Deployment of the deployment is listed yet' };
    const name = objectNames(deploymentId).server;
    return { state: 'ready', url: `http://${name}.${namespace}.svc.cluster.local:${SERVER_PORT}` };
  }

  async logs(deploymentId: string, namespace: string): Promise<string[]> {
    const name = objectNames(deploymentId).server;
    const pods = await this.core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/instance=${name},app.kubernetes.io/component=server` });
    const lines: string[] = [];
    for (const pod of pods.items) {
      const text = await this.core.readNamespacedPodLog({ name: pod.metadata!.name!, namespace, container: 'server' });
      lines.push(
        ...String(text)
          .split('\n')
          .filter((line) => line !== ''),
      );
    }
    return lines;
  }

  async remove(deploymentId: string, namespace: string): Promise<void> {
    const labelSelector = `agentplane.dev/deployment-id=${deploymentId}`;
    for (const [apiVersion, kind] of KINDS) {
      const list = await this.objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector);
      for (const item of list.items) {
        await this.objects.delete(
          { apiVersion, kind, metadata: { name: item.metadata?.name, namespace } },
          undefined,
          undefined,
          undefined,
          undefined,
          'Foreground',
        );
      }
    }
  }
}
