// The Kubernetes deployer: a revision's manifests (renderManifests.ts), checked against the
// Kubernetes schemas, are applied to a target — a cluster (`kubernetes`) or this machine's
// podman (`kube-local`) — and the revision is DEPLOYED once the server's rollout is, or
// DEPLOY_FAILED saying why (a refused field, a schema problem, the rollout's own reason).
// Images only: `external_docker` revisions run their `image_uri`. Every status is stored
// before the next step starts, so after a restart `resume()` redoes at most the step in
// progress; one job at a time per deployment.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { Logger } from '../../ports/logger.ts';
import { timestamp } from '../../clock.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from '../records.ts';
import { redactor, secretValues } from '../redaction.ts';
import { logDeploymentDeleted, logTransition } from '../transitionLog.ts';
import { UNFINISHED, isFinished } from '../deployer/phases.ts';
import { LogWriter, pageOfLog, parseLogLine, readLogLines, type LogRequest } from '../deployer/revisionLogs.ts';
import type { Deployer, LogKind } from '../deployer/types.ts';
import { JobChains } from '../deployer/jobChains.ts';
import type { KubeTarget } from './kubeTarget.ts';
import { namespaceOf, renderManifests, type RenderInput, type Rendered } from './renderManifests.ts';
import { validateManifests } from './validateManifests.ts';

export interface KubeDeployerOptions {
  /** Where the deployer keeps each deployment's database password and deploy log (inside the data directory). */
  root: string;
  defaultNamespace: string;
  postgresImage: string;
  /** How long a rollout may take before the revision is DEPLOY_FAILED. */
  rolloutTimeoutMs: number;
  /** Pause between looks at a rollout. */
  pollMs?: number;
  retryMs?: number;
}

/** A job stopped on purpose (the deployment is being deleted, or the server stops). */
class Cancelled extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class KubeDeployer implements Deployer {
  private readonly stopping = new AbortController();
  private readonly jobs: JobChains;
  private stopped = false;

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly target: KubeTarget,
    private readonly options: KubeDeployerOptions,
    private readonly log: Logger,
  ) {
    fs.mkdirSync(options.root, { recursive: true, mode: 0o700 });
    this.jobs = new JobChains(this.stopping.signal, log, options.retryMs ?? 1_000, (err) => err instanceof Cancelled);
  }

  start(): Promise<void> {
    this.log.info(this.target.describe());
    return this.resume();
  }

  submit(revision: RevisionRecord): void {
    this.jobs.enqueue(revision.deployment_id, () => this.drive(revision.id));
  }

  retire(deploymentId: string): void {
    this.jobs.enqueue(deploymentId, () => this.cleanUp(deploymentId));
  }

  async resume(): Promise<void> {
    // what is deployed keeps running on its own (the cluster, or podman); unfinished work continues
    for (const status of UNFINISHED) {
      for (const revision of await this.repo.revisions.list({ where: { status } })) this.submit(revision);
    }
    for (const deployment of await this.repo.deployments.list({ where: { status: 'AWAITING_DELETE' } })) this.retire(deployment.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.jobs.settled();
  }

  /** The render as the deployer would apply it (the control plane's GET …/manifests shows it masked). */
  async render(deployment: DeploymentRecord, revision: RevisionRecord): Promise<Rendered> {
    return renderManifests(this.renderInput(deployment, revision, this.databasePassword(deployment.id)));
  }

  async readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    // no build: images are built elsewhere
    if (kind === 'build') return pageOfLog([], request, true);
    const deployment = await this.repo.deployments.get(revision.deployment_id);
    const own = readLogLines(this.logFile(revision.deployment_id, revision.id));
    let server: string[] = [];
    if (deployment && deployment.active_revision_id === revision.id) {
      try {
        server = await this.target.logs(deployment.id, namespaceOf(deployment, this.options.defaultNamespace));
      } catch (err) {
        server = [`(the server's log could not be read: ${(err as Error).message})`];
      }
    }
    const redact = deployment ? redactor(secretValues(deployment)) : (text: string) => text;
    const lines = [...own, ...server.map(parseLogLine)].map((line) => ({ ...line, message: redact(line.message) }));
    return pageOfLog(lines, request, false);
  }

  // ---- jobs ----

  private async drive(revisionId: string): Promise<void> {
    for (;;) {
      const revision = await this.repo.revisions.get(revisionId);
      if (!revision || isFinished(revision.status)) return;
      const deployment = await this.repo.deployments.get(revision.deployment_id);
      if (!deployment || deployment.status === 'AWAITING_DELETE') return;
      switch (revision.status) {
        case 'CREATING':
          await this.transition(revision, { status: 'QUEUED' });
          break;
        case 'QUEUED':
        case 'AWAITING_BUILD':
        case 'BUILDING':
          // images only: nothing to build
          await this.transition(revision, { status: 'AWAITING_DEPLOY' });
          break;
        case 'AWAITING_DEPLOY':
          await this.transition(revision, { status: 'DEPLOYING' });
          break;
        case 'DEPLOYING': {
          const outcome = await this.deploy(deployment, revision);
          await this.transition(revision, 'url' in outcome ? { status: 'DEPLOYED', url: outcome.url } : { status: 'DEPLOY_FAILED', message: outcome.failure });
          break;
        }
        default:
          return;
      }
    }
  }

  private async deploy(deployment: DeploymentRecord, revision: RevisionRecord): Promise<{ url: string } | { failure: string }> {
    const log = new LogWriter(this.logFile(deployment.id, revision.id));
    log.reset();
    if (deployment.source === 'github')
      return { failure: 'Deploy failed: the Kubernetes deployers run images; create an external_docker deployment with an image_uri.' };
    const rendered = await this.render(deployment, revision);
    if (!rendered.ok) return { failure: `Deploy failed: ${rendered.refused.map((r) => r.message).join(' ')}` };
    const problems = validateManifests(rendered.manifests);
    if (problems.length > 0)
      return { failure: `Deploy failed: the manifests do not pass the Kubernetes schemas: ${problems.map((p) => `${p.object}: ${p.message}`).join('; ')}` };
    log.write(`applying ${rendered.manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')} in namespace ${rendered.namespace}`);
    try {
      await this.target.apply(deployment.id, rendered.namespace, rendered.manifests, (line) => log.write(line));
    } catch (err) {
      return { failure: `Deploy failed: applying the manifests failed: ${(err as Error).message}` };
    }
    const deadline = Date.now() + this.options.rolloutTimeoutMs;
    let last = 'the rollout has not started';
    while (Date.now() < deadline) {
      if (this.stopping.signal.aborted) throw new Cancelled();
      const now = await this.repo.deployments.get(deployment.id);
      if (!now || now.status === 'AWAITING_DELETE') throw new Cancelled();
      const state = await this.target.rollout(deployment.id, rendered.namespace);
      if (state.state === 'ready') {
        log.write(`rolled out; the server answers at ${state.url}`);
        return { url: state.url };
      }
      if (state.state === 'failed') return { failure: `Deploy failed: ${state.reason}` };
      if (state.reason !== last) log.write(state.reason);
      last = state.reason;
      await sleep(this.options.pollMs ?? 1000);
    }
    return { failure: `Deploy failed: not rolled out within ${Math.round(this.options.rolloutTimeoutMs / 1000)} s: ${last}.` };
  }

  private async transition(before: RevisionRecord, change: { status: RevisionRecord['status']; message?: string; url?: string }): Promise<void> {
    await this.repo.locks.run(before.deployment_id, async () => {
      if (this.stopped) throw new Cancelled();
      const revision = await this.repo.revisions.get(before.id);
      const deployment = await this.repo.deployments.get(before.deployment_id);
      if (!revision || revision.status !== before.status || !deployment || deployment.status === 'AWAITING_DELETE') throw new Cancelled();
      const now = timestamp();
      const next: RevisionRecord = {
        ...revision,
        status: change.status,
        status_message: change.message === undefined ? null : redactor(secretValues(deployment))(change.message),
        updated_at: now,
      };
      let deploymentNext: DeploymentRecord | undefined;
      if (revision.status === 'CREATING' && deployment.status === 'AWAITING_DATABASE') deploymentNext = { ...deployment, status: 'READY', updated_at: now };
      else if (change.status === 'DEPLOYED') {
        // a URL the client set (a load balancer, an ingress) stays; else the platform's
        const url = deployment.source_config.custom_url ?? change.url ?? null;
        deploymentNext = {
          ...deployment,
          status: 'READY',
          active_revision_id: next.id,
          source_config: { ...deployment.source_config, custom_url: url },
          updated_at: now,
        };
      }
      await this.repo.store.write(deploymentNext ? [putRevision(next), putDeployment(deploymentNext)] : [putRevision(next)]);
      logTransition(this.log, revision, next, { before: deployment, after: deploymentNext });
    });
  }

  private async cleanUp(deploymentId: string): Promise<void> {
    const deployment = await this.repo.deployments.get(deploymentId);
    if (deployment && deployment.status !== 'AWAITING_DELETE') return;
    if (deployment) await this.target.remove(deploymentId, namespaceOf(deployment, this.options.defaultNamespace));
    await this.repo.locks.run(deploymentId, async () => {
      const now = await this.repo.deployments.get(deploymentId);
      if (now && now.status !== 'AWAITING_DELETE') return;
      fs.rmSync(this.deploymentDir(deploymentId), { recursive: true, force: true });
      if (now) await this.repo.remove(deploymentId);
      logDeploymentDeleted(this.log, deploymentId, 'cleaned up');
    });
  }

  // ---- files ----

  private renderInput(deployment: DeploymentRecord, revision: RevisionRecord, databasePassword: string): RenderInput {
    return { deployment, revision, defaultNamespace: this.options.defaultNamespace, postgresImage: this.options.postgresImage, databasePassword };
  }

  /** The deployment's database password: made once, kept with the control plane's data, the same for every revision. */
  private databasePassword(deploymentId: string): string {
    const file = path.join(this.deploymentDir(deploymentId), 'database-password');
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch {
      const password = crypto.randomBytes(24).toString('hex');
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, password, { mode: 0o600 });
      return password;
    }
  }

  private deploymentDir(deploymentId: string): string {
    return path.join(this.options.root, deploymentId);
  }

  private logFile(deploymentId: string, revisionId: string): string {
    return path.join(this.deploymentDir(deploymentId), 'logs', `${revisionId}.deploy.log`);
  }
}
