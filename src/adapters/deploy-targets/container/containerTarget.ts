// The container deployer (AGENTPLANE_DEPLOYER=container): every deployment runs as a podman
// pod on this machine (deploymentPod.ts). An `external_docker` revision runs its `image_uri`
// (pulled when this machine does not have it); a `github` revision is cloned here and built
// into an image (its install and build commands run inside the image build, never on the host;
// images/buildImage.ts). `resource_spec` gives each replica its cpu and memory limits and
// `min_scale` the number of replicas, behind one port: the deployment's custom_url.
//
// The containers outlive the control plane: its stop leaves them serving, and its start (or a
// start after kill -9) finds each READY deployment's pod by label and adopts it when it runs
// the active revision, else starts that revision again. While it leads, the deployer restarts
// exited containers with back-off and copies their output (`podman logs --follow`) into the
// revision's server log, which the log operations read.
import { tracingProjectEnv } from '../../../domain/control-plane/deployer/tracingProject.ts';
import { deployedServerAuthEnv, secretsUnderServerSettings } from '../../../domain/control-plane/deployer/deployedServerAuth.ts';
import { SHARED_STORE_SECRET } from '../../../domain/control-plane/targetRules.ts';
import { admitDeploymentSpec } from '../../../domain/control-plane/kubernetes/allowlist/resourceSpec.ts';
import { imageToRun, type WorkloadPolicy } from '../../../domain/control-plane/workloadPolicy.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../domain/ports/logger.ts';
import { buildImage } from '../../images/buildImage.ts';
import { ensureBaseImage } from '../../images/baseImage.ts';
import { EngineError, type ContainerEngine } from '../../images/engine.ts';
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { ControlPlaneRepository, DeploymentRecord, RevisionRecord } from '../../../domain/control-plane/records.ts';
import type { Redact } from '../../../domain/control-plane/redaction.ts';
import type { DeployOutcome, DeployTarget, LogKind, TargetHost } from '../../../domain/control-plane/deployTarget.ts';
import { LABELS, createPod, deploymentImage, podState, removeDeployment, removePod, replicaCount, replicaName, type PodSpec } from './deploymentPod.ts';
import { buildRevision, type BuildResult } from '../shared/localBuild.ts';
import { DeploymentFiles, builtRevision, redactorOf, secretsOf } from '../shared/deploymentFiles.ts';
import { freePort } from '../shared/freePort.ts';
import { answersOk } from '../shared/probes.ts';
import type { LogRequest } from '../../../domain/control-plane/deployer/revisionLogs.ts';
import { LogWriter, capLogFile } from '../../log-files/revisionLogFiles.ts';
import { DEFAULT_LIMITS, Sandboxes, type IsolationMode, type Sandbox } from '../shared/sandbox.ts';

export interface ContainerTargetOptions {
  /** Where the control plane keeps each deployment's logs (inside its data directory). */
  root: string;
  /** Where github revisions are checked out before their image is built (removed after). */
  workspaces: string;
  /** Who clones: the deployment's own user (`user`, as the local deployer's builds) or the control plane's. */
  isolation: IsolationMode;
  /** The control plane's environment, read for PATH and locale only (the clone's). */
  baseEnv: Record<string, string | undefined>;
  engine: ContainerEngine;
  /** The agentplane installation that github revisions' images serve with. */
  packageRoot: string;
  buildTimeoutMs: number;
  /** How long a new pod's replicas have to answer /ok. */
  startTimeoutMs: number;
  logCapBytes: number;
  /** How often the pods are looked at (exited containers, log followers); 2 s by default. */
  superviseMs?: number;
  /** What the operator lets each tenant run (domain/control-plane/workloadPolicy.ts). */
  policy: WorkloadPolicy;
  /** The digests of the keys valid for a tenant: the server deployed for it answers those only. */
  keyDigestsOf?: (tenant: string) => string[];
}

const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;
const HEALTHY_MS = 60_000;

/** A deployment this deployer serves: its pod, restart back-off and log followers. */
interface Served {
  revisionId: string;
  hostPort: number;
  logFile: string;
  followers: Map<string, ChildProcess>;
  backoff: Map<string, { delayMs: number; restartAt: number | null; startedAt: number }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The container target: this machine's podman pods (the revision engine drives it). */
export class ContainerTarget implements DeployTarget {
  readonly builds = true;
  private readonly served = new Map<string, Served>();
  private readonly checkouts: Sandboxes;
  private readonly engine: ContainerEngine;
  private readonly files: DeploymentFiles;
  private host: TargetHost | null = null;
  private superviseTimer: NodeJS.Timeout | null = null;
  private supervising: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly options: ContainerTargetOptions,
    private readonly log: Logger,
  ) {
    this.files = new DeploymentFiles(repo, options.root);
    this.engine = options.engine;
    fs.mkdirSync(options.root, { recursive: true, mode: 0o700 });
    // the clone only (what the repository's code runs, it runs inside the image build); as
    // the deployment's user it cannot clone what the control plane alone may read (a local path)
    this.checkouts = new Sandboxes({ mode: options.isolation, root: options.workspaces, limits: DEFAULT_LIMITS, baseEnv: options.baseEnv });
  }

  start(host: TargetHost): void {
    this.host = host;
    this.log.info(`container deployer: deployments run as ${this.engine.name} pods; their code sees no file of this machine`);
    this.superviseTimer = setInterval(() => {
      this.supervising = this.supervising
        .then(() => this.supervise())
        .catch((err) => this.log.error("supervising the deployments' containers failed", { err }));
    }, this.options.superviseMs ?? 2000);
    this.superviseTimer.unref();
  }

  async release(): Promise<void> {
    if (this.superviseTimer) clearInterval(this.superviseTimer);
    await this.supervising;
    // the pods keep serving: the next start adopts them
    for (const deploymentId of [...this.served.keys()]) this.unserve(deploymentId);
  }

  logs(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    return this.files.readLogs(revision, deployment, kind, request);
  }

  /** The deployment's URL: an external_docker deployment keeps one its client chose (a proxy of theirs in front). */
  private servedUrl(deployment: DeploymentRecord): string | null {
    const served = this.served.get(deployment.id);
    const ours = served ? `http://127.0.0.1:${served.hostPort}` : null;
    // an external_docker deployment keeps a URL its client chose (a proxy of theirs in front)
    return deployment.source === 'github' || !deployment.source_config.custom_url
      ? (ours ?? deployment.source_config.custom_url)
      : deployment.source_config.custom_url;
  }

  // ---- build ----

  async build(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<BuildResult> {
    const log = new LogWriter(this.files.logFile(deployment.id, revision.id, 'build'));
    log.reset();
    const config = deployment.source_config;
    if (!config.repo_url) return { ok: false, reason: 'Build failed: the deployment has no source_config.repo_url to build from.' };
    const redact = redactorOf(deployment);
    let sandbox: Sandbox;
    try {
      sandbox = await this.checkouts.prepare(deployment.id);
    } catch (err) {
      return {
        ok: false,
        reason: `Build failed: the container deployer could not make the deployment's user and workspace for the clone: ${(err as Error).message.trim()}`,
      };
    }
    const checkoutDir = path.join(sandbox.workspace, 'checkouts', revision.id);
    const configPath = revision.source_revision_config.graph_config_path ?? 'langgraph.json';
    try {
      const fetched = await buildRevision({
        repoUrl: config.repo_url,
        repoRef: revision.source_revision_config.repo_ref,
        configPath,
        installCommand: null,
        buildCommand: null,
        checkoutDir,
        sandbox,
        variables: {},
        redact,
        timeoutMs: this.options.buildTimeoutMs,
        signal,
        log,
        checkoutOnly: true,
      });
      if (!fetched.ok) return fetched;
      log.write(`Building the image ${deploymentImage(deployment.id, revision.id)} with ${this.engine.name} (install and build commands run inside it)`);
      await buildImage(
        this.engine,
        {
          tag: deploymentImage(deployment.id, revision.id),
          projectDir: checkoutDir,
          configPath,
          installCommand: config.install_command,
          buildCommand: config.build_command,
          packageRoot: this.options.packageRoot,
          labels: { [LABELS.deployment]: deployment.id },
        },
        { onLine: (line) => log.write(redact(line)), signal, timeoutMs: this.options.buildTimeoutMs },
      );
      log.write('Build finished');
      return fetched;
    } catch (err) {
      const message = redact((err as Error).message);
      log.write(message.split('\n')[0]!, 'ERROR');
      return { ok: false, reason: `Build failed: the image build ${message}` };
    } finally {
      // the image holds the checkout now
      fs.rmSync(checkoutDir, { recursive: true, force: true });
    }
  }

  // ---- deploy ----

  async deploy(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<DeployOutcome> {
    const spec = await this.podSpec(deployment, revision);
    if (typeof spec === 'string') return { ok: false, reason: spec };
    // one store, one writer: the previous revision's pod goes before this one opens the volume
    this.unserve(deployment.id);
    await removePod(this.engine, deployment.id);
    const failure = await this.startPod(spec, signal, redactorOf(deployment));
    if (failure === null) {
      this.serve(spec);
      return { ok: true, url: `http://127.0.0.1:${spec.hostPort}` };
    }
    await removePod(this.engine, deployment.id);
    // the revision that was serving serves again
    if (deployment.active_revision_id) await this.restore(deployment.id, signal);
    return { ok: false, reason: failure };
  }

  /**
   * The id of the image the revision runs, or why it cannot run. Resolved at the revision's
   * first deploy and kept with it (images.json): its redeploys, a restart and a rollback to it
   * run what was checked then, whatever its name is tagged with since.
   */
  private async revisionImage(deployment: DeploymentRecord, revision: RevisionRecord): Promise<{ id: string } | string> {
    const built = await builtRevision(this.repo, revision);
    const pinned = this.pinnedImages(deployment.id)[built.id];
    if (pinned) {
      if (await this.engine.imageId(pinned)) return { id: pinned };
      return `Deploy failed: the image revision ${built.id} runs (${pinned}) is gone from the engine; create a new revision.`;
    }
    let id: string | null;
    if (deployment.source === 'github') {
      id = await this.engine.imageId(deploymentImage(deployment.id, built.id));
      if (!id) return `Deploy failed: the image of revision ${built.id} is gone; create a new revision to build again.`;
    } else {
      const uri = revision.source_revision_config.image_uri;
      if (!uri) return `Deploy failed: the container deployer cannot run a ${deployment.source} revision without image_uri.`;
      // in full: podman never resolves a short name or an id prefix (another deployment's build) of its own
      const allowed = imageToRun(deployment, uri, this.options.policy);
      if (!allowed.ok) return `Deploy failed: ${allowed.reason}`;
      const image = allowed.image;
      // by its name: podman finds `any/repo@<digest>` as whatever local image has that digest (another tenant's build)
      id = await this.engine.namedImageId(image);
      if (!id) {
        try {
          await this.engine.run(['pull', '--', image], { timeoutMs: this.options.buildTimeoutMs });
        } catch (err) {
          return `Deploy failed: image ${image} could not be pulled: ${(err as Error).message}`;
        }
        id = await this.engine.namedImageId(image);
      }
      if (!id) return `Deploy failed: image ${image} is not in the engine's storage under that name.`;
    }
    this.pinImage(deployment.id, built.id, id);
    return { id };
  }

  /** How this revision runs: its image (by id), replicas, limits, ports; or why it cannot. */
  private async podSpec(deployment: DeploymentRecord, revision: RevisionRecord): Promise<PodSpec | string> {
    const resolved = await this.revisionImage(deployment, revision);
    if (typeof resolved === 'string') return resolved;
    const image = resolved.id;
    // what a tenant sent reaches a container only as the allowlist admitted it (stored before a rule, it is refused)
    const admitted = admitDeploymentSpec(deployment, this.options.policy);
    if (!admitted.ok) return `Deploy failed: ${admitted.reason}`;
    const resources = admitted.spec;
    const replicas = replicaCount(resources);
    const tenantSecrets = secretsOf(deployment);
    if (replicas > 1 && !tenantSecrets[SHARED_STORE_SECRET]) {
      return `Deploy failed: resource_spec.min_scale ${replicas} runs ${replicas} replicas, which must share one store: give the deployment a ${SHARED_STORE_SECRET} secret (a PostgreSQL URL reachable from its containers).`;
    }
    const state = await podState(this.engine, deployment.id);
    const hostPort = state?.hostPort ?? this.savedPort(deployment.id) ?? (await freePort());
    const replicaHostPorts = replicas === 1 ? [hostPort] : await Promise.all(Array.from({ length: replicas }, () => freePort()));
    // what the deployer sets of the server itself; no secret of the tenant's may stand over it
    const serverEnv = {
      ...deployedServerAuthEnv(deployment.tenant_id, this.options.keyDigestsOf),
      AGENTPLANE_CONTROL_PLANE: 'off',
      AGENTPLANE_PUBLIC_URL: this.servedUrl(deployment) ?? `http://127.0.0.1:${hostPort}`,
      LOG_LEVEL: 'info',
    };
    const secrets = secretsUnderServerSettings(tenantSecrets, serverEnv);
    return {
      deploymentId: deployment.id,
      revisionId: revision.id,
      image,
      hostPort,
      replicaHostPorts,
      proxyImage: replicas > 1 ? await ensureBaseImage(this.engine) : null,
      resources,
      secrets,
      privateDir: path.join(this.files.dir(deployment.id), 'secrets'),
      env: { ...tracingProjectEnv(deployment.name, secrets), ...serverEnv },
      dataVolume: replicas === 1,
    };
  }

  /** Creates the pod and waits until every replica and the deployment's URL answer /ok; null, or why not. */
  private async startPod(spec: PodSpec, signal: AbortSignal, redact: Redact): Promise<string | null> {
    try {
      await createPod(this.engine, spec);
    } catch (err) {
      return `Deploy failed: ${redact(err instanceof EngineError ? err.message : String(err))}`;
    }
    const urls = [...new Set([spec.hostPort, ...spec.replicaHostPorts])].map((port) => `http://127.0.0.1:${port}`);
    const deadline = Date.now() + this.options.startTimeoutMs;
    while (Date.now() < deadline) {
      if (signal.aborted) return 'Deploy stopped.';
      const state = await podState(this.engine, spec.deploymentId);
      const exited = state?.containers.find((c) => !c.running);
      if (exited) return `Deploy failed: container ${exited.name} exited before it answered /ok.${await this.tail(exited.name, redact)}`;
      // an agentplane server that cannot load a graph of its project exits (above)
      if ((await Promise.all(urls.map(answersOk))).every(Boolean)) return null;
      await sleep(500);
    }
    return `Deploy failed: the deployment's replicas did not answer /ok within ${Math.round(this.options.startTimeoutMs / 1000)} s.${await this.tail(replicaName(spec.deploymentId, 0), redact)}`;
  }

  /** The last lines of a container's output, for a status_message. */
  private async tail(container: string, redact: Redact): Promise<string> {
    try {
      const lines: string[] = [];
      await this.engine.run(['logs', '--tail', '8', container], { onLine: (line) => lines.push(line) });
      return lines.length ? `\n${redact(lines.join('\n'))}` : '';
    } catch {
      return '';
    }
  }

  // ---- serving: supervision and logs ----

  private serve(spec: { deploymentId: string; revisionId: string; hostPort: number }, since?: number): void {
    this.savePort(spec.deploymentId, spec.hostPort);
    const served: Served = {
      revisionId: spec.revisionId,
      hostPort: spec.hostPort,
      logFile: this.files.logFile(spec.deploymentId, spec.revisionId, 'deploy'),
      followers: new Map(),
      backoff: new Map(),
    };
    this.served.set(spec.deploymentId, served);
    void podState(this.engine, spec.deploymentId).then((state) => {
      for (const c of state?.containers ?? []) if (c.role === 'replica' && c.running) this.follow(served, c.name, since ?? c.startedAt);
    });
  }

  private unserve(deploymentId: string): void {
    const served = this.served.get(deploymentId);
    if (!served) return;
    for (const follower of served.followers.values()) follower.kill();
    this.served.delete(deploymentId);
  }

  /**
   * Copies a container's output into the revision's server log from `since` on. Through a pipe
   * of ours, not straight into the file: a follower must end with the control plane (on its
   * next write), or a kill -9 would leave it running beside the next start's.
   */
  private follow(served: Served, container: string, since: number): void {
    served.followers.get(container)?.kill();
    fs.mkdirSync(path.dirname(served.logFile), { recursive: true, mode: 0o700 });
    const child = spawn(this.engine.name, ['logs', '--follow', '--since', new Date(since).toISOString(), container], {
      env: this.engine.environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const write = (chunk: Buffer) => fs.appendFileSync(served.logFile, chunk, { mode: 0o600 });
    child.stdout.on('data', write);
    child.stderr.on('data', write);
    child.on('error', () => undefined);
    served.followers.set(container, child);
  }

  /** Restarts exited containers with back-off; re-follows the restarted; caps the log files. */
  private async supervise(): Promise<void> {
    for (const [deploymentId, served] of this.served) {
      capLogFile(served.logFile, this.options.logCapBytes);
      const state = await podState(this.engine, deploymentId);
      if (this.served.get(deploymentId) !== served) continue;
      if (!state || state.revisionId !== served.revisionId) {
        // the pod was removed behind our back: start it again
        this.unserve(deploymentId);
        this.host?.restoreLater(deploymentId);
        continue;
      }
      for (const container of state.containers) {
        const entry = served.backoff.get(container.name) ?? { delayMs: RESTART_MIN_MS, restartAt: null, startedAt: container.startedAt };
        served.backoff.set(container.name, entry);
        if (container.running) {
          if (Date.now() - container.startedAt > HEALTHY_MS) entry.delayMs = RESTART_MIN_MS;
          continue;
        }
        if (entry.restartAt === null) {
          entry.restartAt = Date.now() + entry.delayMs;
          const note = `[agentplane] container ${container.name} of revision ${served.revisionId} exited; restarting in ${(entry.delayMs / 1000).toFixed(1)} s`;
          fs.appendFileSync(served.logFile, `${note}\n`);
          this.log.warn('deployed container exited; restarting', { deployment_id: deploymentId, container: container.name, restart_in_ms: entry.delayMs });
          entry.delayMs = Math.min(entry.delayMs * 2, RESTART_MAX_MS);
        } else if (Date.now() >= entry.restartAt) {
          entry.restartAt = null;
          const startedAt = Date.now();
          await this.engine
            .run(['start', container.name])
            .catch((err: Error) => this.log.error('could not restart a deployed container', { container: container.name, error: err.message }));
          if (container.role === 'replica') this.follow(served, container.name, startedAt);
        }
      }
    }
  }

  // ---- restart and delete ----

  async restore(deploymentId: string, signal: AbortSignal): Promise<void> {
    if (this.served.has(deploymentId)) return;
    const deployment = await this.repo.deployments.get(deploymentId);
    if (!deployment?.active_revision_id || deployment.status !== 'READY') return;
    const revision = await this.repo.revisions.get(deployment.active_revision_id);
    if (!revision) return;
    const state = await podState(this.engine, deploymentId);
    if (state && state.revisionId === revision.id && state.containers.every((c) => c.running) && (await answersOk(`http://127.0.0.1:${state.hostPort}`))) {
      // its output since the last line copied (the log file's last change)
      const since = fs.existsSync(this.files.logFile(deploymentId, revision.id, 'deploy'))
        ? fs.statSync(this.files.logFile(deploymentId, revision.id, 'deploy')).mtimeMs
        : Date.now();
      this.serve({ deploymentId, revisionId: revision.id, hostPort: state.hostPort }, since);
      this.log.info('deployment re-adopted', { deployment_id: deploymentId, revision_id: revision.id, url: `http://127.0.0.1:${state.hostPort}` });
      return;
    }
    const spec = await this.podSpec(deployment, revision);
    if (typeof spec === 'string') {
      this.log.error('cannot restart a deployment', { deployment_id: deploymentId, reason: spec });
      return;
    }
    await removePod(this.engine, deploymentId);
    const failure = await this.startPod(spec, signal, redactorOf(deployment));
    // a pod that fails its check is still supervised (restarted with back-off): it may be a passing fault
    this.serve(spec);
    if (failure) this.log.error('deployment restarted but not healthy yet', { deployment_id: deploymentId, reason: failure });
    else this.log.info('deployment restarted', { deployment_id: deploymentId, revision_id: revision.id });
  }

  async remove(deploymentId: string): Promise<void> {
    this.unserve(deploymentId);
    await removeDeployment(this.engine, deploymentId);
    fs.rmSync(this.files.dir(deploymentId), { recursive: true, force: true });
    await this.checkouts.remove(deploymentId);
  }

  // the deployment's port outlives its pod (a failed deploy, a removed pod): its URL stays the same

  private savedPort(deploymentId: string): number | null {
    try {
      return (JSON.parse(fs.readFileSync(path.join(this.files.dir(deploymentId), 'pod.json'), 'utf8')) as { port: number }).port;
    } catch {
      return null;
    }
  }

  /** The image ids the deployment's revisions were pinned to, by (built) revision id. */
  private pinnedImages(deploymentId: string): Record<string, string> {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.files.dir(deploymentId), 'images.json'), 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  private pinImage(deploymentId: string, revisionId: string, imageId: string): void {
    const file = path.join(this.files.dir(deploymentId), 'images.json');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify({ ...this.pinnedImages(deploymentId), [revisionId]: imageId }), { mode: 0o600 });
  }

  private savePort(deploymentId: string, port: number): void {
    const file = path.join(this.files.dir(deploymentId), 'pod.json');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify({ port }), { mode: 0o600 });
  }
}
