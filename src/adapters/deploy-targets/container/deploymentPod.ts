// A deployment as the container engine holds it: one podman pod per deployment (named after
// it, so there is never a second), its replicas sharing the pod's network, a round-robin proxy
// in front of them when there are several, and a named volume for the agent server's data.
// Every container and the pod carry the deployment's and the revision's ids as labels: after
// a control-plane crash the deployer finds them again by label, and delete removes by label.
// The containers see nothing of the host but their published ports: no host mounts, and each
// runs under the restricted profile (restrictedContainer.ts).
import type { ContainerEngine } from '../../images/engine.ts';
import { IMAGE_DATA_DIR, IMAGE_PORT } from '../../images/buildImage.ts';
import { proxyProgram } from './roundRobinProxy.ts';
import { deliverSecrets, removeContainerSecrets } from '../shared/containerSecrets.ts';
import { RESTRICTED_RUN_ARGS } from '../shared/restrictedContainer.ts';

export const LABELS = { deployment: 'agentplane.deployment', revision: 'agentplane.revision', role: 'agentplane.role', port: 'agentplane.port' } as const;

export const podName = (deploymentId: string) => `agentplane-${deploymentId}`;
export const replicaName = (deploymentId: string, index: number) => `${podName(deploymentId)}-replica-${index}`;
export const volumeName = (deploymentId: string) => `agentplane-${deploymentId}-data`;
/** Where the images built for a github deployment are tagged (one tag per built revision). */
export const deploymentImage = (deploymentId: string, revisionId: string) => `localhost/agentplane-deployment-${deploymentId}:${revisionId}`;

/** Limits of each process the sandbox of the local deployer has too (processes and threads). */
const PIDS_LIMIT = 4096;

export interface PodSpec {
  deploymentId: string;
  revisionId: string;
  image: string;
  /** The host port of the deployment's URL (127.0.0.1). */
  hostPort: number;
  /** One host port per replica (127.0.0.1), for health checks of each. */
  replicaHostPorts: number[];
  /** The image the proxy runs in (any with node), when there are several replicas. */
  proxyImage: string | null;
  resources: Limits | null;
  /** The deployment's secrets: reach each replica as environment variables, by name (containerSecrets.ts). */
  secrets: Record<string, string>;
  /** A directory private to the control plane, for the files that carry the secrets (left empty). */
  privateDir: string;
  /** Further environment of each replica. */
  env: Record<string, string>;
  /** One replica keeps its data on the deployment's volume; several share a database instead. */
  dataVolume: boolean;
}

/** What a container replica takes of resource_spec (as the allowlist admitted it). */
export type Limits = { readonly [K in 'min_scale' | 'cpu' | 'cpu_limit' | 'memory_mb' | 'memory_limit_mb']?: number | null };

/** The port replica `index` of `count` listens on inside the pod. */
export const replicaPort = (index: number, count: number) => (count === 1 ? IMAGE_PORT : IMAGE_PORT + 1 + index);

/** `resource_spec` as container limits: a request as reservation or shares, a limit (2x the request when unset, as upstream) as the hard cap. */
export function resourceArgs(spec: Limits | null): string[] {
  const args: string[] = [];
  const memory = spec?.memory_mb ?? null;
  const memoryLimit = spec?.memory_limit_mb ?? (memory ? memory * 2 : null);
  if (memoryLimit) args.push('--memory', `${memoryLimit}m`);
  if (memory && memory <= (memoryLimit ?? memory)) args.push('--memory-reservation', `${memory}m`);
  const cpu = spec?.cpu ?? null;
  const cpuLimit = spec?.cpu_limit ?? (cpu ? cpu * 2 : null);
  if (cpuLimit) args.push('--cpus', String(cpuLimit));
  if (cpu) args.push('--cpu-shares', String(Math.max(2, Math.round(cpu * 1024))));
  return args;
}

export const replicaCount = (spec: Limits | null) => Math.max(1, spec?.min_scale ?? 1);

const labelArgs = (labels: Record<string, string>) => Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]);

/** Creates and starts the pod: replicas first, then the proxy. */
export async function createPod(engine: ContainerEngine, spec: PodSpec): Promise<void> {
  const count = spec.replicaHostPorts.length;
  const labels = { [LABELS.deployment]: spec.deploymentId, [LABELS.revision]: spec.revisionId, [LABELS.port]: String(spec.hostPort) };
  const pod = podName(spec.deploymentId);
  const published = [
    `127.0.0.1:${spec.hostPort}:${IMAGE_PORT}`,
    ...(count > 1 ? spec.replicaHostPorts.map((host, i) => `127.0.0.1:${host}:${replicaPort(i, count)}`) : []),
  ];
  await engine.run(['pod', 'create', '--name', pod, ...labelArgs(labels), ...published.flatMap((p) => ['-p', p])]);
  const secrets = await deliverSecrets(engine, spec.deploymentId, spec.secrets, spec.privateDir);
  try {
    for (let i = 0; i < count; i += 1) {
      const env = { ...spec.env, HOST: '0.0.0.0', PORT: String(replicaPort(i, count)) };
      await engine.run([
        'run',
        '--detach',
        '--pod',
        pod,
        '--name',
        replicaName(spec.deploymentId, i),
        ...labelArgs({ ...labels, [LABELS.role]: 'replica' }),
        ...resourceArgs(spec.resources),
        '--pids-limit',
        String(PIDS_LIMIT),
        ...RESTRICTED_RUN_ARGS,
        // `U`: the volume belongs to the container's (non-root) user, whatever the image left at its path
        ...(spec.dataVolume ? ['--volume', `${volumeName(spec.deploymentId)}:${IMAGE_DATA_DIR}:U`] : []),
        ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
        // the secrets' values reach the container alone, neither this command's environment nor its arguments
        ...secrets.args,
        // after "--": the image is never read as an option
        '--',
        spec.image,
      ]);
    }
  } finally {
    secrets.done();
  }
  if (count > 1 && spec.proxyImage) {
    const targets = spec.replicaHostPorts.map((_, i) => `127.0.0.1:${replicaPort(i, count)}`);
    await engine.run([
      'run',
      '--detach',
      '--pod',
      pod,
      '--name',
      `${pod}-proxy`,
      ...labelArgs({ ...labels, [LABELS.role]: 'proxy' }),
      '--memory',
      '128m',
      ...RESTRICTED_RUN_ARGS,
      '--',
      spec.proxyImage,
      'node',
      '-e',
      proxyProgram(IMAGE_PORT, targets),
    ]);
  }
}

export interface PodContainer {
  name: string;
  role: 'replica' | 'proxy';
  running: boolean;
  /** When it last started (to follow its logs from there). */
  startedAt: number;
}

export interface PodState {
  revisionId: string;
  hostPort: number;
  containers: PodContainer[];
}

/** The deployment's pod as the engine has it, or null when there is none. */
export async function podState(engine: ContainerEngine, deploymentId: string): Promise<PodState | null> {
  const listed = JSON.parse((await engine.run(['ps', '--all', '--filter', `label=${LABELS.deployment}=${deploymentId}`, '--format', 'json'])) || '[]') as {
    Names: string[];
    State: string;
    Labels: Record<string, string> | null;
    StartedAt: number;
  }[];
  const containers = listed
    .filter((c) => c.Labels?.[LABELS.role])
    .map((c) => ({ name: c.Names[0]!, role: c.Labels![LABELS.role] as PodContainer['role'], running: c.State === 'running', startedAt: c.StartedAt * 1000 }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const first = listed.find((c) => c.Labels?.[LABELS.revision]);
  if (!first) return null;
  return { revisionId: first.Labels![LABELS.revision]!, hostPort: Number(first.Labels![LABELS.port]), containers };
}

/** Stops and removes the pod and its containers (the volume and images stay). */
export async function removePod(engine: ContainerEngine, deploymentId: string): Promise<void> {
  await engine.run(['pod', 'rm', '--force', '--ignore', '--time', '10', podName(deploymentId)]);
  // containers left outside the pod by an interrupted create
  const stray = (await engine.run(['ps', '--all', '--quiet', '--filter', `label=${LABELS.deployment}=${deploymentId}`])).split('\n').filter(Boolean);
  if (stray.length) await engine.run(['rm', '--force', '--volumes', ...stray]);
  await removeContainerSecrets(engine, deploymentId);
}

/** Everything of the deployment: pod, containers, its volume and the images built for it (the layers of failed builds too). */
export async function removeDeployment(engine: ContainerEngine, deploymentId: string): Promise<void> {
  await removePod(engine, deploymentId);
  await removeVolume(engine, volumeName(deploymentId));
  const listed = await Promise.all([
    engine.listImages([`reference=${deploymentImage(deploymentId, '*')}`]),
    engine.listImages([`label=${LABELS.deployment}=${deploymentId}`], { all: true }),
  ]);
  const images = [...new Set(listed.flat())];
  if (images.length) await engine.run(['rmi', '--force', ...images]);
}

/** How often, and how far apart, the removal of a deployment's volume is tried before its delete fails. */
export const VOLUME_REMOVAL = { attempts: 5, pauseMs: 500 };

/**
 * Removes the volume, and makes sure it is gone. Its removal failing was once ignored, and a
 * deleted deployment's volume (its threads, runs and store) was left behind: the engine may
 * still be letting go of it as the pod's removal returns. So it is asked again, and when the
 * volume outlives every attempt the delete fails, saying so, and is tried again later rather
 * than reported done.
 */
async function removeVolume(engine: ContainerEngine, name: string): Promise<void> {
  let why = '';
  for (let attempt = 1; ; attempt++) {
    await engine.run(['volume', 'rm', '--force', name]).catch((err: Error & { output?: string }) => (why = err.output || err.message));
    const exists = await engine.run(['volume', 'inspect', name]).then(
      () => true,
      () => false,
    );
    if (!exists) return;
    if (attempt >= VOLUME_REMOVAL.attempts)
      throw new Error(`the deployment's volume ${name} could not be removed (${VOLUME_REMOVAL.attempts} attempts): ${why}`);
    await new Promise((resolve) => setTimeout(resolve, VOLUME_REMOVAL.pauseMs * attempt));
  }
}
