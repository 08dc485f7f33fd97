// kube-local: the rendered manifests played on this machine with `podman kube play` (and
// `podman kube down` on delete), for users without a cluster and for testing the manifests on a
// real engine. podman 4 plays Deployments and PersistentVolumeClaims; what it does not play is
// skipped with a line in the revision's deploy log, and a few fields are adapted:
// - HorizontalPodAutoscaler, PodDisruptionBudget, Service, StatefulSet (so the deployment's
//   PostgreSQL): skipped.
// - Secret: created as a podman secret holding its keys (podman reads `secretKeyRef` and
//   `envFrom.secretRef` from those; a `kind: Secret` document it plays is stored in a form it
//   cannot read back).
// - replicas: 1 (each replica would be a pod of its own publishing the same host port).
// - the server's port is published on 127.0.0.1 at a free port kept per deployment; other
//   containerPorts are dropped (podman publishes each on the host).
// - volumes: podman makes an emptyDir, and the volume of a PVC claim, a named volume of the
//   machine under that very name, shared by every pod naming it; here they are named after the
//   deployment (`<Deployment name>-<volume>`) so pods never share one (as on a cluster, an emptyDir is its pod's), and delete removes them.
// - the pod's restartPolicy is OnFailure (podman restarts init containers with the pod's
//   Always, and a finished init container then never leaves); native sidecars (init containers
//   with restartPolicy Always) run beside the main container; probes are dropped (podman turns a
//   liveness probe into a systemd timer, which this deployer does without: it polls /ok itself),
//   and so is the preStop wait (no Service routes to a played pod: nothing to wait out).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { freePort } from '../deployer/probes.ts';
import type { KubeTarget, RolloutState } from './kubeTarget.ts';
import { manifestsAsYaml } from './manifestYaml.ts';
import { objectNames, SERVER_PORT, type Manifest } from './renderManifests.ts';
import { DEFAULT_UID } from './tenantBoundary.ts';

const run = promisify(execFile);

const PLAYED = new Set(['Deployment', 'PersistentVolumeClaim']);

export interface PodmanTargetOptions {
  /** Where the played file and the published port of each deployment are kept. */
  root: string;
  /** Environment of the podman CLI (CONTAINERS_CONF among it). */
  env: Record<string, string | undefined>;
}

type Pod = { spec: { restartPolicy?: string; initContainers?: Container[]; containers: Container[] } };
type Container = Record<string, unknown> & { name: string; restartPolicy?: string; ports?: { containerPort: number; hostPort?: number; hostIP?: string }[] };

/** The manifests as podman plays them (see the top of this file); what is skipped, and why. */
export function adaptForPodman(manifests: Manifest[], serverName: string, hostPort: number): { played: Manifest[]; secrets: Manifest[]; skipped: string[] } {
  const played: Manifest[] = [];
  const secrets: Manifest[] = [];
  const skipped: string[] = [];
  for (const manifest of manifests) {
    if (manifest.kind === 'Secret') secrets.push(manifest);
    else if (!PLAYED.has(manifest.kind)) skipped.push(`${manifest.kind}/${manifest.metadata.name}`);
    else if (manifest.kind !== 'Deployment') played.push(manifest);
    else {
      const copy = structuredClone(manifest) as Manifest & { spec: { replicas: number; template: Pod } };
      copy.spec.replicas = 1;
      const pod = copy.spec.template.spec;
      pod.restartPolicy = 'OnFailure';
      ownVolumes(pod, manifest.metadata.name);
      const native = (pod.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
      pod.initContainers = (pod.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
      if (pod.initContainers.length === 0) delete pod.initContainers;
      pod.containers = [...pod.containers, ...native.map(({ restartPolicy: _always, ...c }) => c as Container)];
      for (const container of pod.containers) {
        delete container.readinessProbe;
        delete container.livenessProbe;
        delete container.startupProbe;
        delete container.lifecycle;
        const server = manifest.metadata.name === serverName && container === pod.containers[0];
        if (server) container.ports = [{ containerPort: SERVER_PORT, hostPort, hostIP: '127.0.0.1' }];
        else delete container.ports;
      }
      played.push(copy);
    }
  }
  return { played, secrets, skipped };
}

/** The pod volumes of `secret` or `projected` source (podman 4's kube play panics on them). */
function secretVolumes(played: Manifest[]): string[] {
  const volumes = played.flatMap(
    (m) => (m.spec as { template?: { spec?: { volumes?: Record<string, unknown>[] } } } | undefined)?.template?.spec?.volumes ?? [],
  );
  return volumes.filter((v) => v.secret !== undefined || v.projected !== undefined).map((v) => `volume ${String(v.name)}`);
}

/** The podman volumes the played pods use, each with the user of the pod's first container. */
function ownedVolumes(played: Manifest[]): { name: string; uid: number }[] {
  return played.flatMap((m) => {
    const pod = (m.spec as { template?: { spec?: Pod['spec'] & { volumes?: PodVolume[] } } } | undefined)?.template?.spec;
    if (!pod) return [];
    const uid = Number((pod.containers[0]?.securityContext as { runAsUser?: number } | undefined)?.runAsUser ?? DEFAULT_UID);
    return (pod.volumes ?? []).flatMap((v) => {
      const name = v.emptyDir !== undefined ? v.name : v.persistentVolumeClaim?.claimName;
      return name ? [{ name, uid }] : [];
    });
  });
}

type PodVolume = { name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } };
type Mount = { name: string };

/** The pod's emptyDir and PVC volumes as podman volumes of this deployment's own (see the top of this file). */
function ownVolumes(pod: Pod['spec'] & { volumes?: PodVolume[] }, prefix: string): void {
  const renamed = new Map<string, string>();
  for (const volume of pod.volumes ?? []) {
    if (volume.emptyDir !== undefined) {
      renamed.set(volume.name, `${prefix}-${volume.name}`);
      volume.name = `${prefix}-${volume.name}`;
    } else if (volume.persistentVolumeClaim) {
      volume.persistentVolumeClaim.claimName = `${prefix}-${volume.persistentVolumeClaim.claimName}`;
    }
  }
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    for (const mount of (container.volumeMounts ?? []) as Mount[]) mount.name = renamed.get(mount.name) ?? mount.name;
  }
}

export class PodmanTarget implements KubeTarget {
  constructor(private readonly options: PodmanTargetOptions) {
    fs.mkdirSync(options.root, { recursive: true, mode: 0o700 });
  }

  describe(): string {
    return `kube-local deployer: manifests are played with podman kube play on this machine (CONTAINERS_CONF=${this.options.env.CONTAINERS_CONF ?? 'podman default'})`;
  }

  async apply(deploymentId: string, _namespace: string, manifests: Manifest[], say: (line: string) => void): Promise<void> {
    const names = objectNames(deploymentId);
    const { played, secrets, skipped } = adaptForPodman(manifests, names.server, await this.hostPort(deploymentId));
    const unplayable = secretVolumes(played);
    if (unplayable.length)
      throw new Error(
        `kube-local cannot play ${unplayable.join(', ')}: podman kube play does not mount a Secret as a volume; read the deployment's secrets from its environment (envFrom, secretKeyRef)`,
      );
    for (const object of skipped) say(`kube-local: ${object} not played: podman kube play does not run this kind`);
    const file = this.playedFile(deploymentId);
    // the previous revision's pods go first: their names and host port are the same
    if (fs.existsSync(file)) await this.podman(['kube', 'down', file]).catch(() => undefined);
    for (const secret of secrets) await this.createSecret(deploymentId, secret);
    // the containers run as a user of their own (restricted profile): their volumes are made theirs
    for (const { name, uid } of ownedVolumes(played)) {
      const exists = await this.podman(['volume', 'exists', name]).then(
        () => true,
        () => false,
      );
      if (!exists) await this.podman(['volume', 'create', '--opt', `o=uid=${uid},gid=${uid}`, name]);
    }
    fs.writeFileSync(file, manifestsAsYaml(played), { mode: 0o600 });
    say(`kube-local: playing ${played.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
    await this.podman(['kube', 'play', file]);
  }

  async rollout(deploymentId: string): Promise<RolloutState> {
    const pods = this.podNames(deploymentId);
    for (const pod of pods) {
      const containers = await this.containers(pod);
      if (containers.length === 0) return { state: 'pending', reason: `pod ${pod} has no containers yet` };
      const failed = containers.find((c) => c.State === 'exited' && c.ExitCode !== 0);
      if (failed)
        return {
          state: 'failed',
          reason: `container ${failed.Names[0]} exited with code ${failed.ExitCode}: ${(await this.tail(failed.Names[0])).join(' | ')}`,
        };
      // a finished init container is done, not waiting
      const waiting = containers.find((c) => c.State !== 'running' && !c.IsInfra && !(c.State === 'exited' && c.ExitCode === 0));
      if (waiting) return { state: 'pending', reason: `container ${waiting.Names[0]} is ${waiting.State}` };
    }
    const url = `http://127.0.0.1:${await this.hostPort(deploymentId)}`;
    try {
      const res = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return { state: 'ready', url };
      return { state: 'pending', reason: `the server answers /ok with ${res.status}` };
    } catch {
      return { state: 'pending', reason: 'the server does not answer /ok yet' };
    }
  }

  async logs(deploymentId: string): Promise<string[]> {
    const { stdout, stderr } = await this.podman(['logs', `${objectNames(deploymentId).server}-pod-0-server`]);
    return `${stdout}${stderr}`.split('\n').filter((line) => line !== '');
  }

  async remove(deploymentId: string): Promise<void> {
    const file = this.playedFile(deploymentId);
    if (fs.existsSync(file)) await this.podman(['kube', 'down', file]).catch(() => undefined);
    // whatever kube down left (a pod of an interrupted play)
    for (const pod of this.podNames(deploymentId)) await this.podman(['pod', 'rm', '--force', '--ignore', pod]);
    const names = objectNames(deploymentId);
    for (const secret of [names.secrets, names.databaseSecret]) await this.podman(['secret', 'rm', secret]).catch(() => undefined);
    const { stdout } = await this.podman(['volume', 'ls', '--format', '{{.Name}}']);
    for (const volume of stdout.split('\n').filter((name) => name.startsWith(`${names.server}-`))) await this.podman(['volume', 'rm', '--force', volume]);
    fs.rmSync(path.join(this.options.root, deploymentId), { recursive: true, force: true });
  }

  // ---- podman ----

  private async podman(args: string[]): Promise<{ stdout: string; stderr: string }> {
    try {
      return await run('podman', args, { env: this.options.env as NodeJS.ProcessEnv, maxBuffer: 32 * 1024 * 1024 });
    } catch (err) {
      // a crash of podman prints its Go stack: a revision's status says what failed, not that
      const stderr = String((err as { stderr?: string }).stderr ?? '');
      const panic = /^panic: .*$/m.exec(stderr);
      if (panic) throw new Error(`podman ${args.slice(0, 2).join(' ')} crashed (${panic[0]})`);
      throw err;
    }
  }

  private async createSecret(deploymentId: string, secret: Manifest): Promise<void> {
    const values = (secret.stringData ?? {}) as Record<string, string>;
    // podman reads a secret's keys as base64 values of a JSON object
    const content = JSON.stringify(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString('base64')])));
    await this.podman(['secret', 'rm', secret.metadata.name]).catch(() => undefined);
    // from a private file: podman reads `-` only from a FIFO, and Node's pipes are sockets
    const file = path.join(this.options.root, deploymentId, `${secret.metadata.name}.json`);
    fs.writeFileSync(file, content, { mode: 0o600 });
    try {
      await this.podman(['secret', 'create', secret.metadata.name, file]);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  private async containers(pod: string): Promise<{ Names: string[]; State: string; ExitCode: number; IsInfra: boolean }[]> {
    const { stdout } = await this.podman(['ps', '--all', '--filter', `pod=${pod}`, '--format', 'json']);
    return JSON.parse(stdout || '[]');
  }

  private async tail(container: string): Promise<string[]> {
    const { stdout, stderr } = await this.podman(['logs', '--tail', '5', container]).catch(() => ({ stdout: '', stderr: '' }));
    return `${stdout}${stderr}`.split('\n').filter((line) => line !== '');
  }

  private podNames(deploymentId: string): string[] {
    const file = this.playedFile(deploymentId);
    if (!fs.existsSync(file)) return [];
    const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJSON() as Manifest);
    return docs.filter((m) => m.kind === 'Deployment').map((m) => `${m.metadata.name}-pod-0`);
  }

  /** The deployment's host port: chosen once, kept, so a new revision answers where the last one did. */
  private async hostPort(deploymentId: string): Promise<number> {
    const file = path.join(this.options.root, deploymentId, 'port');
    const saved = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : NaN;
    if (Number.isInteger(saved) && saved > 0) return saved;
    const port = await freePort();
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, String(port), { mode: 0o600 });
    return port;
  }

  private playedFile(deploymentId: string): string {
    return path.join(this.options.root, deploymentId, 'played.yaml');
  }
}
