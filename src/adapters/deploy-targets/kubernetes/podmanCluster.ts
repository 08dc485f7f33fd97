// kube-local: the rendered manifests played on this machine with `podman kube play` (and
// `podman kube down` on delete), for users without a cluster and for testing the manifests on a
// real engine. podman 4 plays Deployments and PersistentVolumeClaims; what it does not play is
// skipped with a line in the revision's deploy log, and a few fields are adapted:
// - the deployment's PostgreSQL (a StatefulSet) is played as a one-pod Deployment of its own,
//   its claim a named volume, from a file of its own: it keeps running across revisions (played
//   again only when its manifest changes), so the threads, runs and store of every revision
//   are the same. podman gives pods no DNS names: the other pods reach it through a
//   `hostAliases` entry naming its Service with its pod's address (taken at each revision: a
//   database pod restarted on its own, a reboot, may come back at another address, which a
//   redeploy picks up).
// - every pod of the deployment (server, queue, database) is played on a podman network of the
//   deployment's own, created isolated (`--opt isolate=true`: podman blocks traffic between
//   isolated networks), so no other tenant's pod reaches its server or its database, and they
//   reach no one else's: the boundary the rendered NetworkPolicies draw on a cluster, which are
//   skipped here. The host still reaches them (the published port, the database's login check).
// - HorizontalPodAutoscaler (played at its minimum: nothing autoscales here),
//   PodDisruptionBudget, Service: skipped. Several replicas are refused at the API (targetRules.ts).
// - Secret: created as a podman secret holding its keys (podman reads `secretKeyRef` and
//   `envFrom.secretRef` from those; a `kind: Secret` document it plays is stored in a form it
//   cannot read back).
// - the server's port is published on 127.0.0.1 at a free port kept per deployment; other
//   containerPorts are dropped (podman publishes each on the host).
// - volumes: podman makes an emptyDir, and the volume of a PVC claim, a named volume of the
//   machine under that very name, shared by every pod naming it; here they are named after the
//   deployment (`<Deployment name>-<volume>`) so pods never share one (as on a cluster, an emptyDir is its pod's), and delete removes them.
// - the pod's restartPolicy is OnFailure (podman restarts init containers with the pod's
//   Always, and a finished init container then never leaves); native sidecars (init containers
//   with restartPolicy Always) run beside the main container; probes are dropped (podman turns a
//   liveness probe into a systemd timer, which this deployer does without: it polls /ok itself,
//   with check_db=1 when it plays the database, and waits for the database to serve its login),
//   and so is the preStop wait (no Service routes to a played pod: nothing to wait out).
// - a played pod whose containers stopped (a crash, an out-of-memory kill) is started again by
//   this deployer once its deployment has rolled out, as a kubelet restarts a Deployment's pod:
//   podman leaves it stopped (playedPodRestarts.ts says why, and how long it waits).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import YAML from 'yaml';
import { freePort } from '../shared/freePort.ts';
import { NAMES_FORMAT, namedImageIdOf } from '../../images/engine.ts';
import type { Cluster, RolloutState } from './cluster.ts';
import { manifestsAsYaml } from '../../../domain/control-plane/kubernetes/manifestYaml.ts';
import { DATABASE_PORT, objectNames, SERVER_PORT, type Manifest } from '../../../domain/control-plane/kubernetes/renderManifests.ts';
import { DEFAULT_UID } from '../../../domain/control-plane/kubernetes/tenantBoundary.ts';
import type { Logger } from '../../../domain/ports/logger.ts';
import { PlayedPodRestarts } from './playedPodRestarts.ts';

const run = promisify(execFile);

const PLAYED = new Set(['Deployment', 'PersistentVolumeClaim']);
/** How long the deployment's PostgreSQL has to accept connections (its first start initialises its volume). */
const DATABASE_START_MS = 60_000;

/** The value a `secretKeyRef` names among the rendered Secrets, as Kubernetes would put it in a variable. */
function secretValue(secrets: Manifest[], ref: { name: string; key: string }): string | undefined {
  return (secrets.find((s) => s.metadata.name === ref.name)?.stringData as Record<string, string> | undefined)?.[ref.key];
}

/** How the deployment's server logs in to its database: the database container's own variables. */
export interface DatabaseLogin {
  user: string;
  database: string;
  password: string;
}

export function databaseLogin(database: Manifest, secrets: Manifest[]): DatabaseLogin {
  const env = ((database.spec as { template: Pod }).template.spec.containers[0]?.env ?? []) as EnvVar[];
  const value = (name: string) => {
    const variable = env.find((v) => v.name === name);
    const ref = variable?.valueFrom?.secretKeyRef;
    return ref ? secretValue(secrets, ref) : variable?.value;
  };
  const user = value('POSTGRES_USER') ?? 'postgres';
  return { user, database: value('POSTGRES_DB') ?? user, password: value('POSTGRES_PASSWORD') ?? '' };
}

/**
 * Why the database at host:port does not serve the deployment's login yet, or null once it does. A
 * port that accepts is not enough: PostgreSQL listens before its startup has finished, and
 * answers "the database system is starting up" (57P03) meanwhile; this is what the rendered
 * readinessProbe's pg_isready waits out on a cluster, and a login also proves pg_hba lets the
 * pods' network in.
 */
export async function notServing(host: string, port: number, login: DatabaseLogin): Promise<string | null> {
  const client = new pg.Client({ host, port, ...login, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The deployment's own podman network: named after it, like its pods and volumes. */
export const networkName = (deploymentId: string) => `${objectNames(deploymentId).server}-net`;

export interface PodmanTargetOptions {
  /** Where the played file and the published port of each deployment are kept. */
  root: string;
  /** Environment of the podman CLI (CONTAINERS_CONF among it). */
  env: Record<string, string | undefined>;
  /** How often the played pods are looked at (default 5 s). */
  superviseMs?: number;
}

type Pod = { spec: { restartPolicy?: string; initContainers?: Container[]; containers: Container[] } };
type Container = Record<string, unknown> & { name: string; restartPolicy?: string; ports?: { containerPort: number; hostPort?: number; hostIP?: string }[] };

export interface Adapted {
  /** The deployment's workloads (and claims), played again for each revision. */
  played: Manifest[];
  /** The deployment's PostgreSQL as a Deployment, played once and kept. */
  database: Manifest | null;
  secrets: Manifest[];
  /** What is not played, each with why. */
  skipped: string[];
}

/** The database's StatefulSet as the one-pod Deployment podman plays, its claim template a claim of the same name. */
function databaseDeployment(statefulSet: Manifest): Manifest {
  const spec = statefulSet.spec as { selector: unknown; template: { spec: { volumes?: PodVolume[] } }; volumeClaimTemplates: { metadata: { name: string } }[] };
  const template = structuredClone(spec.template);
  template.spec.volumes = spec.volumeClaimTemplates.map((claim) => ({ name: claim.metadata.name, persistentVolumeClaim: { claimName: claim.metadata.name } }));
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: statefulSet.metadata, spec: { replicas: 1, selector: spec.selector, template } };
}

/** The manifests as podman plays them (see the top of this file); what is skipped, and why. */
export function adaptForPodman(manifests: Manifest[], serverName: string, hostPort: number): Adapted {
  const played: Manifest[] = [];
  const secrets: Manifest[] = [];
  const skipped: string[] = [];
  let database: Manifest | null = null;
  for (const manifest of manifests) {
    const object = `${manifest.kind}/${manifest.metadata.name}`;
    if (manifest.kind === 'Secret') secrets.push(manifest);
    else if (manifest.kind === 'HorizontalPodAutoscaler') skipped.push(`${object} played at its minimum: nothing autoscales on this machine`);
    else if (manifest.kind === 'StatefulSet') database = databaseDeployment(manifest);
    else if (manifest.kind === 'NetworkPolicy') skipped.push(`${object} drawn by the deployment's own podman network instead`);
    else if (!PLAYED.has(manifest.kind)) skipped.push(`${object} not played: podman kube play does not run this kind`);
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
  for (const workload of played.filter((m) => m.kind === 'Deployment')) expandDependentVariables((workload.spec as { template: Pod }).template.spec, secrets);
  if (database) {
    const pod = (database.spec as { template: Pod }).template.spec;
    pod.restartPolicy = 'Always';
    ownVolumes(pod, database.metadata.name);
    for (const container of pod.containers) {
      delete container.readinessProbe;
      delete container.ports;
    }
  }
  return { played, database, secrets, skipped };
}

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

/**
 * Kubernetes expands `$(NAME)` in a variable's value from the variables before it (the
 * DATABASE_URL carries its password so); podman kube play does not, so it is done here from
 * the literal values and the keys of the rendered Secrets. The played file holds the result:
 * it is private to the control plane, as the podman secrets are.
 */
function expandDependentVariables(pod: Pod['spec'], secrets: Manifest[]): void {
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    const known = new Map<string, string>();
    for (const variable of (container.env ?? []) as EnvVar[]) {
      if (variable.value !== undefined) {
        variable.value = variable.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => known.get(name) ?? whole);
        known.set(variable.name, variable.value);
      } else if (variable.valueFrom?.secretKeyRef) {
        const value = secretValue(secrets, variable.valueFrom.secretKeyRef);
        if (value !== undefined) known.set(variable.name, value);
      }
    }
  }
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

/** A pod this deployer plays, and the names podman gives the containers that serve in it (not its init containers). */
interface PlayedPod {
  pod: string;
  containers: string[];
}

export class PodmanCluster implements Cluster {
  /** Deployments being played or removed now: their pods are not looked at meanwhile. */
  private readonly busy = new Set<string>();
  private readonly restarts = new PlayedPodRestarts();
  private superviseTimer: NodeJS.Timeout | null = null;
  private supervising: Promise<void> = Promise.resolve();

  constructor(private readonly options: PodmanTargetOptions) {
    fs.mkdirSync(options.root, { recursive: true, mode: 0o700 });
  }

  /** Starts looking after the played pods: a stopped one is started again (see the top of this file). */
  start(log: Logger): void {
    if (this.superviseTimer) return;
    this.superviseTimer = setInterval(() => {
      this.supervising = this.supervising.then(() => this.supervise(log)).catch((err) => log.error("looking after kube-local's played pods failed", { err }));
    }, this.options.superviseMs ?? 5000);
    this.superviseTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.superviseTimer) clearInterval(this.superviseTimer);
    this.superviseTimer = null;
    await this.supervising;
  }

  describe(): string {
    return `kube-local deployer: manifests are played with podman kube play on this machine (CONTAINERS_CONF=${this.options.env.CONTAINERS_CONF ?? 'podman default'})`;
  }

  async apply(deploymentId: string, _namespace: string, manifests: Manifest[], say: (line: string) => void): Promise<void> {
    this.busy.add(deploymentId);
    try {
      // looked after again once this revision has rolled out (rollout)
      fs.rmSync(this.rolledOutFile(deploymentId), { force: true });
      await this.play(deploymentId, manifests, say);
    } finally {
      this.busy.delete(deploymentId);
    }
  }

  private async play(deploymentId: string, manifests: Manifest[], say: (line: string) => void): Promise<void> {
    const names = objectNames(deploymentId);
    const { played, database, secrets, skipped } = adaptForPodman(manifests, names.server, await this.hostPort(deploymentId));
    const unplayable = secretVolumes(played);
    if (unplayable.length)
      throw new Error(
        `kube-local cannot play ${unplayable.join(', ')}: podman kube play does not mount a Secret as a volume; read the deployment's secrets from its environment (envFrom, secretKeyRef)`,
      );
    for (const object of skipped) say(`kube-local: ${object}`);
    // before anything of the previous revision's goes: an image refused leaves it serving
    await this.imagesByName(played, say);
    const file = this.playedFile(deploymentId);
    // the previous revision's pods go first: their names and host port are the same
    if (fs.existsSync(file)) await this.podman(['kube', 'down', file]).catch(() => undefined);
    for (const secret of secrets) {
      // the database's password never changes, and its running pod holds the secret
      if (secret.metadata.name === names.databaseSecret && (await this.exists(['secret', 'inspect', secret.metadata.name]))) continue;
      await this.createSecret(deploymentId, secret);
    }
    await this.ownVolumes([...played, ...(database ? [database] : [])]);
    const network = await this.ownNetwork(deploymentId);
    if (database) {
      const address = await this.playDatabase(deploymentId, database, databaseLogin(database, secrets), network, say);
      // what a cluster's DNS does for the database's Service
      for (const workload of played.filter((m) => m.kind === 'Deployment'))
        (workload.spec as { template: { spec: Record<string, unknown> } }).template.spec.hostAliases = [{ ip: address, hostnames: [names.database] }];
    }
    fs.writeFileSync(file, manifestsAsYaml(played), { mode: 0o600 });
    say(`kube-local: playing ${played.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
    await this.podman(['kube', 'play', '--network', network, file]);
  }

  /**
   * Every image the played pods run (sidecars and init containers too) is in this machine's
   * storage under its own name, pulled when it is not (unless its pull policy is Never), before
   * anything plays: podman, and so kube play, finds `any/repo@<digest>` as whatever local image
   * has that digest, another tenant's build or private pull among them (issue 83).
   */
  private async imagesByName(played: Manifest[], say: (line: string) => void): Promise<void> {
    const containers = played.flatMap((m) => {
      const pod = (m.spec as { template?: Pod } | undefined)?.template?.spec;
      return pod ? [...(pod.initContainers ?? []), ...pod.containers] : [];
    });
    const named = (image: string) =>
      this.podman(['image', 'inspect', '--format', NAMES_FORMAT, '--', image]).then(
        ({ stdout }) => namedImageIdOf(image, stdout) !== null,
        () => false,
      );
    for (const container of containers) {
      const image = String(container.image);
      if (await named(image)) continue;
      if (container.imagePullPolicy === 'Never')
        throw new Error(`image ${image} (container ${container.name}) is not in this machine's storage under that name, and its imagePullPolicy is Never`);
      say(`kube-local: pulling ${image}`);
      await this.podman(['pull', '--', image]);
      if (!(await named(image)))
        throw new Error(`image ${image} (container ${container.name}) is not in this machine's storage under that name after its pull`);
    }
  }

  /** The deployment's own isolated podman network (see the top of this file), created once. */
  private async ownNetwork(deploymentId: string): Promise<string> {
    const network = networkName(deploymentId);
    if (!(await this.exists(['network', 'exists', network]))) await this.podman(['network', 'create', '--opt', 'isolate=true', network]);
    return network;
  }

  /**
   * Plays the deployment's PostgreSQL unless it runs as rendered already (a new revision leaves
   * it be), waits until it serves the deployment's login, and answers its pod's address.
   */
  private async playDatabase(deploymentId: string, database: Manifest, login: DatabaseLogin, network: string, say: (line: string) => void): Promise<string> {
    const file = this.databaseFile(deploymentId);
    // the network is part of what is played: a database played before networks were the deployment's own is played again on it
    const yaml = `# network: ${network}\n${manifestsAsYaml([database])}`;
    const pod = `${database.metadata.name}-pod-0`;
    const running = fs.existsSync(file) && fs.readFileSync(file, 'utf8') === yaml && (await this.address(pod)) !== null;
    if (!running) {
      if (fs.existsSync(file)) await this.podman(['kube', 'down', file]).catch(() => undefined);
      fs.writeFileSync(file, yaml, { mode: 0o600 });
      say(`kube-local: playing the deployment's PostgreSQL (Deployment/${database.metadata.name}, its data on volume ${database.metadata.name}-data)`);
      await this.podman(['kube', 'play', '--network', network, file]);
    }
    const deadline = Date.now() + DATABASE_START_MS;
    let refusal = 'its pod has no address yet';
    for (;;) {
      const address = await this.address(pod);
      if (address) {
        const why = await notServing(address, DATABASE_PORT, login);
        if (why === null) return address;
        refusal = why;
      }
      const exited = (await this.containers(pod)).find((c) => c.State === 'exited');
      if (exited || Date.now() > deadline) {
        const name = exited?.Names[0] ?? `${pod}-postgres`;
        const why = exited ? `exited with code ${exited.ExitCode}` : `did not serve the deployment's login within ${DATABASE_START_MS / 1000} s (${refusal})`;
        throw new Error(`the deployment's PostgreSQL (container ${name}) ${why}: ${(await this.tail(name)).join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** The address of a pod on podman's network, or null when it does not run. */
  private async address(pod: string): Promise<string | null> {
    const infra = await this.podman(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}']).catch(() => null);
    if (!infra) return null;
    const { stdout } = await this.podman([
      'inspect',
      infra.stdout.trim(),
      '--format',
      '{{.State.Running}} {{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}',
    ]);
    const [runningNow, ip] = stdout.trim().split(/\s+/);
    return runningNow === 'true' && ip ? ip : null;
  }

  private exists(args: string[]): Promise<boolean> {
    return this.podman(args).then(
      () => true,
      () => false,
    );
  }

  /** The containers run as a user of their own (restricted profile): their volumes are made theirs. */
  private async ownVolumes(played: Manifest[]): Promise<void> {
    for (const { name, uid } of ownedVolumes(played)) {
      if (!(await this.exists(['volume', 'exists', name]))) await this.podman(['volume', 'create', '--opt', `o=uid=${uid},gid=${uid}`, name]);
    }
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
    // ready once it serves and its database answers it (a database played beside it may still
    // be starting, or starting again): a revision DEPLOYED takes writes
    const probe = fs.existsSync(this.databaseFile(deploymentId)) ? '/ok?check_db=1' : '/ok';
    try {
      const res = await fetch(`${url}${probe}`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) {
        // from now on a pod of it that stops is started again
        if (fs.existsSync(this.playedFile(deploymentId))) fs.writeFileSync(this.rolledOutFile(deploymentId), '', { mode: 0o600 });
        return { state: 'ready', url };
      }
      return { state: 'pending', reason: `the server answers ${probe} with ${res.status}: ${(await res.text()).slice(0, 300)}` };
    } catch {
      // the cause (a database it cannot reach, a graph it cannot load) is in its own output
      const names = objectNames(deploymentId);
      const lines = await this.tail(`${names.server}-pod-0-server`);
      // a server that cannot use its database says so; why the database refuses is in the database's own lines
      const database = fs.existsSync(this.databaseFile(deploymentId)) ? await this.tail(`${names.database}-pod-0-postgres`) : [];
      return {
        state: 'pending',
        reason: `the server does not answer /ok yet${lines.length ? `; its last lines: ${lines.join(' | ')}` : ''}${database.length ? `; its database's last lines: ${database.join(' | ')}` : ''}`,
      };
    }
  }

  async logs(deploymentId: string): Promise<string[]> {
    const { stdout, stderr } = await this.podman(['logs', `${objectNames(deploymentId).server}-pod-0-server`]);
    return `${stdout}${stderr}`.split('\n').filter((line) => line !== '');
  }

  async remove(deploymentId: string): Promise<void> {
    this.busy.add(deploymentId);
    try {
      await this.removeAll(deploymentId);
    } finally {
      this.busy.delete(deploymentId);
    }
  }

  private async removeAll(deploymentId: string): Promise<void> {
    fs.rmSync(this.rolledOutFile(deploymentId), { force: true });
    for (const file of [this.playedFile(deploymentId), this.databaseFile(deploymentId)])
      if (fs.existsSync(file)) await this.podman(['kube', 'down', file]).catch(() => undefined);
    const names = objectNames(deploymentId);
    // whatever kube down left (a pod of an interrupted play, a database whose file is gone):
    // every pod of the deployment is named after it, the database's too
    const ours = (listed: string) => listed.split('\n').filter((name) => name.startsWith(`${names.server}-`));
    const pods = await this.podman(['pod', 'ps', '--format', '{{.Name}}']);
    for (const pod of new Set([...this.podNames(deploymentId), ...ours(pods.stdout)])) await this.podman(['pod', 'rm', '--force', '--ignore', pod]);
    for (const secret of [names.secrets, names.databaseSecret]) await this.podman(['secret', 'rm', secret]).catch(() => undefined);
    const volumes = await this.podman(['volume', 'ls', '--format', '{{.Name}}']);
    for (const volume of ours(volumes.stdout)) await this.podman(['volume', 'rm', '--force', volume]);
    if (await this.exists(['network', 'exists', networkName(deploymentId)])) await this.podman(['network', 'rm', '--force', networkName(deploymentId)]);
    fs.rmSync(path.join(this.options.root, deploymentId), { recursive: true, force: true });
  }

  // ---- looking after the played pods ----

  /** One look at every rolled-out deployment's pods: a stopped one is started again after its back-off. */
  private async supervise(log: Logger): Promise<void> {
    const watched = fs
      .readdirSync(this.options.root)
      .filter((id) => !this.busy.has(id) && fs.existsSync(this.rolledOutFile(id)))
      .map((id) => ({ id, pods: this.playedPods(id) }));
    const pods = new Set(watched.flatMap(({ pods }) => pods.map((p) => p.pod)));
    this.restarts.forgetUnless((pod) => pods.has(pod));
    if (pods.size === 0) return;
    const { stdout } = await this.podman(['ps', '--all', '--format', 'json', '--filter', 'name=^agentplane-']);
    const state = new Map<string, string>();
    for (const c of JSON.parse(stdout || '[]') as { Names: string[]; State: string }[]) for (const name of c.Names) state.set(name, c.State);
    for (const { id, pods: played } of watched) {
      for (const { pod, containers } of played) {
        // played again or removed while podman was asked: its pods are the new play's
        if (this.busy.has(id) || !fs.existsSync(this.rolledOutFile(id))) break;
        // gone altogether (removed behind the deployer's back): a new revision plays it again
        if (!containers.some((c) => state.has(c))) continue;
        const action = this.restarts.seen(
          pod,
          containers.every((c) => state.get(c) === 'running'),
          Date.now(),
        );
        if (action.do === 'wait') {
          const stopped = containers.filter((c) => state.get(c) !== 'running').map((c) => `${c} ${state.get(c) ?? 'missing'}`);
          log.warn("a played pod's containers stopped; starting the pod again", { deployment_id: id, pod, stopped, restart_in_ms: action.inMs });
        } else if (action.do === 'start') {
          await this.podman(['pod', 'start', pod]).catch((err: Error) =>
            log.error('could not start a played pod again', { deployment_id: id, pod, error: err.message.split('\n')[0] }),
          );
        }
      }
    }
  }

  /** The pods of the deployment as played (its workloads', and its database's) with the containers that serve in each. */
  private playedPods(deploymentId: string): PlayedPod[] {
    const pods: PlayedPod[] = [];
    for (const file of [this.playedFile(deploymentId), this.databaseFile(deploymentId)]) {
      if (!fs.existsSync(file)) continue;
      for (const doc of YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'))) {
        const manifest = doc.toJSON() as (Manifest & { spec?: { template?: Pod } }) | null;
        if (manifest?.kind !== 'Deployment' || !manifest.spec?.template) continue;
        const pod = `${manifest.metadata.name}-pod-0`;
        pods.push({ pod, containers: manifest.spec.template.spec.containers.map((c) => `${pod}-${c.name}`) });
      }
    }
    return pods;
  }

  /** Present once the deployment's current play has rolled out: its pods are looked after from then on. */
  private rolledOutFile(deploymentId: string): string {
    return path.join(this.options.root, deploymentId, 'rolled-out');
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

  /** The deployment's PostgreSQL as played (see playDatabase). */
  private databaseFile(deploymentId: string): string {
    return path.join(this.options.root, deploymentId, 'database.yaml');
  }
}
