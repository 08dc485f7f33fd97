// The local deployer: builds `github` revisions from their git repository and runs each
// deployment as an agentplane agent server on this machine (docker images through a
// container runtime found on PATH). The phases, job queue and retries are the revision
// engine's (../revisionEngine.ts); this is its deploy target.
//
// A deployment's own code runs in its sandbox (sandbox.ts): a workspace under `workspaces`,
// per deployment: checkouts/<revision>/ (kept, so a redeploy needs no build), data/ (the
// agent server's store, shared by its revisions: threads outlive a redeploy), HOME and
// TMPDIR. What only the control plane reads stays under `root`, inside its data directory:
// logs/<revision>.build.log and .server.log, process.json (port and pid). Everything read
// back from a deployment's processes has its secret values masked.
import { admitDeploymentSpec } from '../../../domain/control-plane/kubernetes/allowlist/resourceSpec.ts';
import { imageToRun, type WorkloadPolicy } from '../../../domain/control-plane/workloadPolicy.ts';
import { tracingProjectEnv } from '../../../domain/control-plane/deployer/tracingProject.ts';
import { deployedServerAuthEnv } from '../../../domain/control-plane/deployer/deployedServerAuth.ts';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../domain/ports/logger.ts';
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { ControlPlaneRepository, DeploymentRecord, RevisionRecord } from '../../../domain/control-plane/records.ts';
import type { Redact } from '../../../domain/control-plane/redaction.ts';
import { AgentProcess, isAlive, terminate, type AgentProcessSpec } from './agentProcess.ts';
import { confinedProjectFile } from '../shared/checkoutPaths.ts';
import { buildRevision, type BuildResult } from '../shared/localBuild.ts';
import { DeploymentFiles, builtRevision, redactorOf, secretsOf } from '../shared/deploymentFiles.ts';
import type { DeployOutcome, DeployTarget, LogKind } from '../../../domain/control-plane/deployTarget.ts';
import { freePort } from '../shared/freePort.ts';
import { missingGraphs, newProbeKey, stillServes } from '../shared/probes.ts';
import { ContainerEngine, withoutOwnSettings, type EngineName } from '../../images/engine.ts';
import { deliverSecrets, removeContainerSecrets } from '../shared/containerSecrets.ts';
import type { LogRequest } from '../../../domain/control-plane/deployer/revisionLogs.ts';
import { LogWriter, capLogFile } from '../../log-files/revisionLogFiles.ts';
import { Sandboxes, type IsolationMode, type ResourceLimits, type Sandbox } from '../shared/sandbox.ts';
import { RESTRICTED_RUN_ARGS } from '../shared/restrictedContainer.ts';

export interface LocalTargetOptions {
  /** Where the control plane keeps each deployment's logs and process file (inside its data directory). */
  root: string;
  /** Where each deployment's workspace is made: checkouts and agent-server data (outside the data directory). */
  workspaces: string;
  isolation: IsolationMode;
  limits: ResourceLimits;
  /** The agentplane CLI that serves a deployment: command and the arguments before `serve`. */
  agentCommand: { command: string; args: string[] };
  buildTimeoutMs: number;
  /** How long a new agent server has to answer /ok with every graph loaded. */
  startTimeoutMs: number;
  /** Size cap of each server log file. */
  logCapBytes: number;
  /** The control plane's environment: sandboxed processes get PATH and locale from it, the docker or podman CLI all but its own settings. */
  baseEnv: Record<string, string | undefined>;
  /** What the operator lets each tenant run (domain/control-plane/workloadPolicy.ts). */
  policy: WorkloadPolicy;
  /** The digests of the keys valid for a tenant: an agentplane server deployed for it answers those only. */
  keyDigestsOf?: (tenant: string) => string[];
  /** First wait before a failed step is tried again (doubling, up to 30 s); 1 s by default. */
}

interface ProcessFile {
  port: number;
  pid: number | null;
  revision_id: string | null;
}

function containerRuntime(env: Record<string, string>): EngineName | null {
  for (const cli of ['docker', 'podman'] as const) {
    try {
      execFileSync(cli, ['--version'], { stdio: 'ignore', timeout: 5000, env });
      return cli;
    } catch {
      // not installed
    }
  }
  return null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The local target: agent servers as sandboxed processes on this machine (the revision engine drives it). */
export class LocalTarget implements DeployTarget {
  readonly builds = true;
  private readonly processes = new Map<string, AgentProcess>();
  private readonly capTimer: NodeJS.Timeout;
  private readonly sandboxes: Sandboxes;
  private readonly files: DeploymentFiles;

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly options: LocalTargetOptions,
    private readonly log: Logger,
  ) {
    this.files = new DeploymentFiles(repo, options.root);
    fs.mkdirSync(options.root, { recursive: true, mode: 0o700 });
    this.sandboxes = new Sandboxes({ mode: options.isolation, root: options.workspaces, limits: options.limits, baseEnv: options.baseEnv });
    this.capTimer = setInterval(() => {
      for (const proc of this.processes.values()) capLogFile(proc.spec.logFile, options.logCapBytes);
    }, 5000);
    this.capTimer.unref();
  }

  start(): void {
    const unreachable = this.unreachable();
    if (this.sandboxes.mode === 'none') this.log.warn(this.sandboxes.describe());
    else if (unreachable) this.log.error(`deployments cannot run: ${unreachable}`);
    else this.log.info(this.sandboxes.describe());
  }

  async release(): Promise<void> {
    clearInterval(this.capTimer);
    // a clean stop takes the deployments down with it; the next start brings them back
    await Promise.all([...this.processes.values()].map((proc) => proc.stop()));
    this.processes.clear();
  }

  logs(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    return this.files.readLogs(revision, deployment, kind, request);
  }

  // ---- build ----

  async build(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<BuildResult> {
    const log = new LogWriter(this.files.logFile(deployment.id, revision.id, 'build'));
    log.reset();
    const config = deployment.source_config;
    if (!config.repo_url) return { ok: false, reason: 'Build failed: the deployment has no source_config.repo_url to build from.' };
    const sandbox = await this.sandbox(deployment.id);
    if (typeof sandbox === 'string') return { ok: false, reason: `Build failed: ${sandbox}` };
    log.write(this.sandboxes.describe());
    return buildRevision({
      repoUrl: config.repo_url,
      repoRef: revision.source_revision_config.repo_ref,
      configPath: revision.source_revision_config.graph_config_path ?? 'langgraph.json',
      installCommand: config.install_command,
      buildCommand: config.build_command,
      checkoutDir: this.checkoutDir(deployment.id, revision.id),
      sandbox,
      variables: secretsOf(deployment),
      redact: redactorOf(deployment),
      timeoutMs: this.options.buildTimeoutMs,
      signal,
      log,
    });
  }

  /** The deployment's sandbox, or why the machine cannot give it one (said in the revision's status_message). */
  private async sandbox(deploymentId: string): Promise<Sandbox | string> {
    const unreachable = this.unreachable();
    if (unreachable) return `the local deployer is misconfigured: ${unreachable}.`;
    let sandbox: Sandbox;
    try {
      sandbox = await this.sandboxes.prepare(deploymentId);
    } catch (err) {
      // no useradd, a read-only /etc/passwd, no system user ids left: retrying would not help
      return `the local deployer could not make the deployment's user and workspace: ${(err as Error).message.trim()}`;
    }
    this.moveIntoWorkspace(deploymentId, sandbox);
    return sandbox;
  }

  /**
   * A deployment made when checkouts and its agent server's data lived in the data directory
   * (before workspaces): they move into its workspace, once, so its threads and its built
   * revisions survive the upgrade.
   */
  private moveIntoWorkspace(deploymentId: string, sandbox: Sandbox): void {
    for (const name of ['checkouts', 'data']) {
      const before = path.join(this.files.dir(deploymentId), name);
      const after = path.join(sandbox.workspace, name);
      if (!fs.existsSync(before) || fs.existsSync(after)) continue;
      try {
        fs.renameSync(before, after);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        fs.cpSync(before, after, { recursive: true, verbatimSymlinks: true });
        fs.rmSync(before, { recursive: true, force: true });
      }
      sandbox.give(after);
      this.log.info("moved a deployment's files into its workspace", { deployment_id: deploymentId, from: before, to: after });
    }
  }

  /** Why deployments' users could not reach their workspaces or the agentplane they run, or null. */
  private unreachable(): string | null {
    const { command, args } = this.options.agentCommand;
    return this.sandboxes.unreachable([command, ...args].filter((a) => path.isAbsolute(a)).map((a) => path.dirname(a)));
  }

  // ---- deploy ----

  /** Replaces the deployment's process with this revision's. */
  async deploy(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<DeployOutcome> {
    const built = await builtRevision(this.repo, revision);
    const spec = await this.processSpec(deployment, revision, built);
    if (typeof spec === 'string') return { ok: false, reason: spec };
    const previous = this.processes.get(deployment.id);
    // one store, one process: the previous revision stops before this one opens its data
    await previous?.stop();
    this.processes.delete(deployment.id);
    const proc = this.newProcess(spec);
    const failure = await this.startAndCheck(proc, built, signal, redactorOf(deployment));
    if (failure === null) {
      this.processes.set(deployment.id, proc);
      // the server assigns a github deployment its URL; an image's keeps the client's
      return { ok: true, url: deployment.source === 'github' ? spec.url : null };
    }
    await proc.stop();
    if (previous) {
      // the revision that was serving keeps serving
      const again = this.newProcess(previous.spec);
      again.start();
      this.processes.set(deployment.id, again);
    }
    return { ok: false, reason: failure };
  }

  /** Starts a process and waits until it answers /ok with every graph of the project loaded. */
  private async startAndCheck(proc: AgentProcess, built: RevisionRecord, signal: AbortSignal, redact: Redact): Promise<string | null> {
    proc.start();
    let exited: string | null = null;
    void proc.exited.then((how) => (exited = how));
    const deadline = Date.now() + this.options.startTimeoutMs;
    const graphs = this.graphIds(built);
    const tail = () => {
      const lines = fs.existsSync(proc.spec.logFile) ? redact(fs.readFileSync(proc.spec.logFile, 'utf8').trimEnd().split('\n').slice(-8).join('\n')) : '';
      return lines ? `\n${lines}` : '';
    };
    while (Date.now() < deadline) {
      if (signal.aborted) return 'Deploy stopped.';
      if (exited) return `Deploy failed: the agent server ${exited} before it answered /ok.${tail()}`;
      try {
        const ok = await fetch(`${proc.spec.url}/ok`, { signal: AbortSignal.timeout(2000) });
        if (ok.status === 200) {
          const missing = await missingGraphs(proc.spec.url, graphs, proc.spec.probeKey);
          if (missing.length === 0) return null;
          return `Deploy failed: the agent server started without graph(s) ${missing.join(', ')}; see the server logs.${tail()}`;
        }
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    return `Deploy failed: the agent server did not answer /ok within ${Math.round(this.options.startTimeoutMs / 1000)} s.${tail()}`;
  }

  private graphIds(built: RevisionRecord): string[] {
    try {
      const config = this.projectFile(built);
      if (!config.ok) return [];
      const file = config.file;
      const project = JSON.parse(fs.readFileSync(file, 'utf8')) as { graphs?: Record<string, unknown> };
      return Object.keys(project.graphs ?? {});
    } catch {
      return [];
    }
  }

  private async processSpec(deployment: DeploymentRecord, revision: RevisionRecord, built: RevisionRecord): Promise<AgentProcessSpec | string> {
    const port = this.readProcessFile(deployment.id)?.port ?? (await freePort());
    const url = `http://127.0.0.1:${port}`;
    const secrets = secretsOf(deployment);
    const base = { deploymentId: deployment.id, revisionId: revision.id, logFile: this.files.logFile(deployment.id, revision.id, 'deploy'), url };
    if (deployment.source === 'github') {
      const sandbox = await this.sandbox(deployment.id);
      if (typeof sandbox === 'string') return `Deploy failed: ${sandbox}`;
      const checkout = this.checkoutDir(deployment.id, built.id);
      if (!fs.existsSync(checkout)) return `Deploy failed: the checkout of revision ${built.id} is gone; create a new revision to build again.`;
      const config = this.projectFile(built);
      if (!config.ok) return `Deploy failed: ${config.problem}.`;
      const admitted = admitDeploymentSpec(deployment, this.options.policy);
      if (!admitted.ok) return `Deploy failed: ${admitted.reason}`;
      const memory = admitted.spec.memory_limit_mb;
      const dataDir = path.join(sandbox.workspace, 'data');
      const agent = this.options.agentCommand;
      const probe = newProbeKey();
      const limited = sandbox.limited(agent.command, [
        ...(memory ? [`--max-old-space-size=${memory}`] : []),
        ...agent.args,
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--data',
        dataDir,
        '--config',
        config.file,
      ]);
      return {
        ...base,
        ...limited,
        uid: sandbox.uid,
        gid: sandbox.gid,
        cwd: path.dirname(config.file),
        env: sandbox.env({
          ...tracingProjectEnv(deployment.name, secrets),
          ...secrets,
          ...deployedServerAuthEnv(deployment.tenant_id, this.options.keyDigestsOf, probe),
          AGENTPLANE_CONTROL_PLANE: 'off',
          AGENTPLANE_PUBLIC_URL: url,
          LOG_LEVEL: 'info',
        }),
        probeKey: probe.key,
      };
    }
    const image = revision.source_revision_config.image_uri;
    if ((deployment.source === 'external_docker' || deployment.source === 'internal_docker') && image) {
      const runtime = containerRuntime(withoutOwnSettings(this.options.baseEnv));
      if (!runtime) return `Deploy failed: the local deployer runs images with docker or podman, and neither is installed on this machine.`;
      const admitted = admitDeploymentSpec(deployment, this.options.policy);
      if (!admitted.ok) return `Deploy failed: ${admitted.reason}`;
      const allowed = imageToRun(deployment, image, this.options.policy);
      if (!allowed.ok) return `Deploy failed: ${allowed.reason}`;
      const memory = admitted.spec.memory_limit_mb;
      const engineEnv = withoutOwnSettings(this.options.baseEnv);
      const engine = new ContainerEngine({ name: runtime, env: engineEnv, containersConf: null });
      // the secrets reach the container alone (containerSecrets.ts); the files docker reads stay
      // (private to the control plane) while the process may be restarted, and go with the deployment
      let delivery: Awaited<ReturnType<typeof deliverSecrets>>;
      try {
        delivery = await deliverSecrets(engine, deployment.id, secrets, this.secretsDir(deployment.id));
      } catch (err) {
        return `Deploy failed: ${(err as Error).message}.`;
      }
      return {
        ...base,
        command: runtime,
        args: [
          'run',
          '--rm',
          '--name',
          `agentplane-${deployment.id}`,
          '-p',
          `127.0.0.1:${port}:8000`,
          ...(memory ? ['--memory', `${memory}m`] : []),
          ...RESTRICTED_RUN_ARGS,
          ...delivery.args,
          // the image in full, after the options: never read as one, nor resolved to a local id
          '--',
          allowed.image,
        ],
        cwd: this.files.dir(deployment.id),
        env: engineEnv,
      };
    }
    return `Deploy failed: the local deployer cannot run a ${deployment.source} revision${image ? '' : ' without image_uri'}.`;
  }

  /** A process whose every (re)start is recorded in process.json, for re-adoption after a crash. */
  private newProcess(spec: AgentProcessSpec): AgentProcess {
    return new AgentProcess(spec, this.log, (pid) =>
      this.saveProcessFile(spec.deploymentId, { port: this.portOf(spec.url), pid, revision_id: spec.revisionId }),
    );
  }

  // ---- restart and delete ----

  /** After a restart: adopt the deployment's process if it is still serving, else start it again. */
  async restore(deploymentId: string, signal: AbortSignal): Promise<void> {
    if (this.processes.has(deploymentId)) return;
    const deployment = await this.repo.deployments.get(deploymentId);
    if (!deployment?.active_revision_id || deployment.status !== 'READY') return;
    const revision = await this.repo.revisions.get(deployment.active_revision_id);
    if (!revision) return;
    const built = await builtRevision(this.repo, revision);
    const spec = await this.processSpec(deployment, revision, built);
    if (typeof spec === 'string') {
      this.log.error('cannot restart a deployment', { deployment_id: deploymentId, reason: spec });
      return;
    }
    const proc = this.newProcess(spec);
    const saved = this.readProcessFile(deploymentId);
    if (saved?.pid && saved.revision_id === revision.id && isAlive(saved.pid) && (await stillServes(spec.url))) {
      proc.adopt(saved.pid);
      this.processes.set(deploymentId, proc);
      this.log.info('deployment re-adopted', { deployment_id: deploymentId, revision_id: revision.id, pid: saved.pid, url: spec.url });
      return;
    }
    const failure = await this.startAndCheck(proc, built, signal, redactorOf(deployment));
    // a process that fails its check is still supervised (restarted with back-off): it may be a passing fault
    this.processes.set(deploymentId, proc);
    if (failure) this.log.error('deployment restarted but not healthy yet', { deployment_id: deploymentId, reason: failure });
    else this.log.info('deployment restarted', { deployment_id: deploymentId, revision_id: revision.id, url: spec.url });
  }

  async remove(deploymentId: string): Promise<void> {
    const proc = this.processes.get(deploymentId);
    if (proc) await proc.stop();
    else {
      // a process adopted by no one (the control plane restarted while deleting)
      const saved = this.readProcessFile(deploymentId);
      if (saved?.pid && isAlive(saved.pid)) await terminate(saved.pid);
    }
    this.processes.delete(deploymentId);
    // an image ran: its engine may keep secrets of the deployment
    const ranImage = fs.existsSync(this.secretsDir(deploymentId));
    fs.rmSync(this.files.dir(deploymentId), { recursive: true, force: true });
    const runtime = ranImage ? containerRuntime(withoutOwnSettings(this.options.baseEnv)) : null;
    if (runtime)
      await removeContainerSecrets(new ContainerEngine({ name: runtime, env: withoutOwnSettings(this.options.baseEnv), containersConf: null }), deploymentId);
    await this.sandboxes.remove(deploymentId);
  }

  // ---- files ----

  /** Private to the control plane: the files that carry an image's secrets to its engine. */
  private secretsDir(deploymentId: string): string {
    return path.join(this.files.dir(deploymentId), 'secrets');
  }

  private checkoutDir(deploymentId: string, revisionId: string): string {
    return path.join(this.options.workspaces, deploymentId, 'checkouts', revisionId);
  }

  /** The built revision's project file, confined to its checkout (its real path). */
  private projectFile(built: RevisionRecord) {
    return confinedProjectFile(this.checkoutDir(built.deployment_id, built.id), built.source_revision_config.graph_config_path ?? 'langgraph.json');
  }

  private portOf(url: string): number {
    return Number(new URL(url).port);
  }

  private readProcessFile(deploymentId: string): ProcessFile | null {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.files.dir(deploymentId), 'process.json'), 'utf8')) as ProcessFile;
    } catch {
      return null;
    }
  }

  private saveProcessFile(deploymentId: string, value: ProcessFile): void {
    const file = path.join(this.files.dir(deploymentId), 'process.json');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(value), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
  }
}
