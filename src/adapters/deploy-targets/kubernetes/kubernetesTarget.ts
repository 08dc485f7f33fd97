// The Kubernetes deploy target: a revision's manifests (renderManifests.ts), checked against the
// Kubernetes schemas, are applied to a cluster (`kubernetes`) or this machine's podman
// (`kube-local`), and the revision is DEPLOYED once the server's rollout is, or DEPLOY_FAILED
// saying why (a refused field, a schema problem, the rollout's own reason). Images only:
// `external_docker` revisions run their `image_uri`, nothing is built. The lifecycle, order
// and retries are the revision engine's (domain/control-plane/revisionEngine.ts); what is deployed keeps running
// on its own (the cluster; kube-local's pods with the cluster's own look after them, podmanCluster.ts),
// so there is nothing to restore after a restart.
import { deployedServerAuthEnv } from '../../../domain/control-plane/deployer/deployedServerAuth.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { Logger } from '../../../domain/ports/logger.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../domain/control-plane/records.ts';
import { redactor, secretValues } from '../../../domain/control-plane/redaction.ts';
import { pageOfLog, parseLogLine, type LogRequest } from '../../../domain/control-plane/deployer/revisionLogs.ts';
import { LogWriter, readLogLines } from '../../log-files/revisionLogFiles.ts';
import type { DeployOutcome, DeployTarget, LogKind } from '../../../domain/control-plane/deployTarget.ts';
import type { Cluster } from './cluster.ts';
import { databasePassword } from './databasePassword.ts';
import { namespaceOf, renderManifests, type RenderInput, type Rendered } from '../../../domain/control-plane/kubernetes/renderManifests.ts';
import { validateManifests } from '../../../domain/control-plane/kubernetes/validateManifests.ts';
import { workloadOf, type WorkloadPolicy } from '../../../domain/control-plane/workloadPolicy.ts';

export interface KubernetesTargetOptions {
  /** Where the deployer keeps each deployment's database password and deploy log (inside the data directory). */
  root: string;
  defaultNamespace: string;
  postgresImage: string;
  /** What the operator lets each tenant run (domain/control-plane/workloadPolicy.ts). */
  policy: WorkloadPolicy;
  /** How long a rollout may take before the revision is DEPLOY_FAILED. */
  rolloutTimeoutMs: number;
  /** Pause between looks at a rollout. */
  pollMs?: number;
  /** The digests of the keys valid for a tenant: the server deployed for it answers those only. */
  keyDigestsOf?: (tenant: string) => string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Kubernetes target: a revision's manifests applied to a cluster (the revision engine drives it). */
export class KubernetesTarget implements DeployTarget {
  readonly builds = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly options: KubernetesTargetOptions,
    private readonly log: Logger,
  ) {
    fs.mkdirSync(options.root, { recursive: true, mode: 0o700 });
  }

  start(): void {
    this.log.info(this.cluster.describe());
    this.cluster.start?.(this.log);
  }

  async release(): Promise<void> {
    await this.cluster.stop?.();
  }

  build(): Promise<never> {
    return Promise.reject(new Error('the Kubernetes deployers build nothing: they run images'));
  }

  /** The render as the deployer would apply it (the control plane's GET …/manifests shows it masked). */
  async render(deployment: DeploymentRecord, revision: RevisionRecord): Promise<Rendered> {
    return renderManifests(this.renderInput(deployment, revision, databasePassword(this.deploymentDir(deployment.id))));
  }

  async logs(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    // no build: images are built elsewhere
    if (kind === 'build') return pageOfLog([], request, true);
    const own = readLogLines(this.logFile(revision.deployment_id, revision.id));
    let server: string[] = [];
    if (deployment && deployment.active_revision_id === revision.id) {
      try {
        server = await this.cluster.logs(deployment.id, namespaceOf(deployment, this.options.defaultNamespace));
      } catch (err) {
        server = [`(the server's log could not be read: ${(err as Error).message})`];
      }
    }
    const redact = deployment ? redactor(secretValues(deployment)) : (text: string) => text;
    const lines = [...own, ...server.map(parseLogLine)].map((line) => ({ ...line, message: redact(line.message) }));
    return pageOfLog(lines, request, false);
  }

  async deploy(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<DeployOutcome> {
    const outcome = await this.rollOut(deployment, revision, signal);
    return 'url' in outcome ? { ok: true, url: outcome.url } : { ok: false, reason: outcome.failure };
  }

  private async rollOut(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<{ url: string } | { failure: string }> {
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
      await this.cluster.apply(deployment.id, rendered.namespace, rendered.manifests, (line) => log.write(line));
    } catch (err) {
      return { failure: `Deploy failed: applying the manifests failed: ${(err as Error).message}` };
    }
    const deadline = Date.now() + this.options.rolloutTimeoutMs;
    let last = 'the rollout has not started';
    while (Date.now() < deadline) {
      // retired or stopping: the engine ends the job
      if (signal.aborted) return { failure: 'Deploy stopped.' };
      const state = await this.cluster.rollout(deployment.id, rendered.namespace);
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

  async remove(deploymentId: string, deployment: DeploymentRecord | undefined): Promise<void> {
    if (deployment) await this.cluster.remove(deploymentId, namespaceOf(deployment, this.options.defaultNamespace));
    fs.rmSync(this.deploymentDir(deploymentId), { recursive: true, force: true });
  }

  // ---- files ----

  private renderInput(deployment: DeploymentRecord, revision: RevisionRecord, databasePassword: string): RenderInput {
    const { defaultNamespace, postgresImage, policy, keyDigestsOf } = this.options;
    const serverAuth = deployedServerAuthEnv(deployment.tenant_id, keyDigestsOf);
    return { deployment, revision, defaultNamespace, postgresImage, databasePassword, workload: workloadOf(policy, deployment.tenant_id), serverAuth };
  }

  private deploymentDir(deploymentId: string): string {
    return path.join(this.options.root, deploymentId);
  }

  private logFile(deploymentId: string, revisionId: string): string {
    return path.join(this.deploymentDir(deploymentId), 'logs', `${revisionId}.deploy.log`);
  }
}
