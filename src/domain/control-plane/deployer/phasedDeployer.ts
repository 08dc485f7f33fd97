// What every real deployer shares: revisions driven status by status, each status stored
// before the work of the next one starts (so after a restart `resume()` redoes at most the
// step in progress), one job at a time per deployment (a revision waits in QUEUED while an
// earlier one builds or deploys), failed steps retried, and the deployment's side of each
// transition (READY, active revision, URL). How a revision is built, deployed, restored and
// removed is the subclass's: processes on this machine (localDeployer.ts) or containers
// (containerDeployer.ts).
import path from 'node:path';
import type { RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { Logger } from '../../ports/logger.ts';
import { timestamp } from '../../clock.ts';
import { retryUntilDone } from '../../retry.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from '../records.ts';
import { redactor, secretValues, type Redact } from '../redaction.ts';
import { logTransition } from '../transitionLog.ts';
import type { BuildResult } from './localBuild.ts';
import { UNFINISHED, isFinished } from './phases.ts';
import { readLogPage, type LogRequest } from './revisionLogs.ts';
import type { Deployer, LogKind } from './types.ts';

/** A revision job stopped on purpose (the deployment is being deleted, or the server stops). */
export class Cancelled extends Error {}

export const secretsOf = (deployment: DeploymentRecord): Record<string, string> => Object.fromEntries(deployment.secrets.map((s) => [s.name, s.value]));

export abstract class PhasedDeployer implements Deployer {
  /** The tail of each deployment's job chain. */
  private readonly chains = new Map<string, Promise<void>>();
  protected readonly aborts = new Map<string, AbortController>();
  private readonly stopping = new AbortController();
  protected stopped = false;

  constructor(
    protected readonly repo: ControlPlaneRepository,
    protected readonly log: Logger,
    /** Where the control plane keeps each deployment's logs and files (inside its data directory). */
    private readonly root: string,
    /** First wait before a failed step is tried again (doubling, up to 30 s). */
    private readonly retryMs: number,
  ) {}

  /** Builds the revision (its status is BUILDING); the outcome decides AWAITING_DEPLOY or BUILD_FAILED. */
  protected abstract build(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<BuildResult>;
  /** Replaces what serves the deployment with this revision; null on success, else the reason (DEPLOY_FAILED). */
  protected abstract deploy(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<string | null>;
  /** After a restart: what served the deployment serves again (adopted, or started anew). */
  protected abstract restore(deploymentId: string): Promise<void>;
  /** Removes everything of a deployment in AWAITING_DELETE, then its records. */
  protected abstract cleanUp(deploymentId: string): Promise<void>;
  /** The deployment's URL once this revision is DEPLOYED. */
  protected abstract servedUrl(deployment: DeploymentRecord): string | null;
  /** Called once the job chains have settled on stop. */
  protected abstract release(): Promise<void>;

  submit(revision: RevisionRecord): void {
    this.enqueue(revision.deployment_id, () => this.drive(revision.id));
  }

  retire(deploymentId: string): void {
    // a build in progress is stopped rather than waited for
    this.aborts.get(deploymentId)?.abort();
    this.enqueue(deploymentId, () => this.cleanUp(deploymentId));
  }

  async resume(): Promise<void> {
    // what was serving before the restart serves again first, then unfinished work continues
    for (const deployment of await this.repo.deployments.list({ where: { status: 'READY' } })) {
      if (deployment.active_revision_id) this.enqueue(deployment.id, () => this.restore(deployment.id));
    }
    for (const status of UNFINISHED) {
      for (const revision of await this.repo.revisions.list({ where: { status } })) this.submit(revision);
    }
    for (const deployment of await this.repo.deployments.list({ where: { status: 'AWAITING_DELETE' } })) this.retire(deployment.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const controller of this.aborts.values()) controller.abort();
    await Promise.all([...this.chains.values()]);
    await this.release();
  }

  /** A page of the revision's build log (the deployer's) or server log (what its agent server wrote), secrets masked. */
  async readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    const deployment = await this.repo.deployments.get(revision.deployment_id);
    const complete = async () => {
      if (kind === 'deploy') return false;
      const now = await this.repo.revisions.get(revision.id);
      return !now || !['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING'].includes(now.status);
    };
    return readLogPage(this.logFile(revision.deployment_id, revision.id, kind), request, complete, deployment ? this.redactorOf(deployment) : undefined);
  }

  /** What only the control plane reads of a deployment: its logs and the deployer's files. */
  protected deploymentDir(deploymentId: string): string {
    return path.join(this.root, deploymentId);
  }

  protected logFile(deploymentId: string, revisionId: string, kind: LogKind): string {
    return path.join(this.deploymentDir(deploymentId), 'logs', `${revisionId}.${kind === 'build' ? 'build' : 'server'}.log`);
  }

  // ---- jobs ----

  protected enqueue(deploymentId: string, job: () => Promise<void>): void {
    if (this.stopped) return;
    const previous = this.chains.get(deploymentId) ?? Promise.resolve();
    const next = previous
      // every job continues from what is stored, so running it again after a failure (a full
      // disk, a lost database connection) is safe; later jobs of the deployment wait for it
      .then(() =>
        this.stopped
          ? undefined
          : retryUntilDone(job, {
              signal: this.stopping.signal,
              firstDelayMs: this.retryMs,
              maxDelayMs: 30_000,
              isFinal: (err) => err instanceof Cancelled,
              onFailure: (err, attempt, retryInMs) =>
                this.log.error('deployer step failed; trying again', { deployment_id: deploymentId, attempt, retry_in_ms: retryInMs, err }),
            }),
      )
      .catch((err) => {
        if (!(err instanceof Cancelled))
          this.log.error('deployer step not finished before the stop; it resumes on the next start', { deployment_id: deploymentId, err });
      });
    this.chains.set(deploymentId, next);
    void next.finally(() => {
      if (this.chains.get(deploymentId) === next) this.chains.delete(deploymentId);
    });
  }

  protected signalFor(deploymentId: string): AbortSignal {
    let controller = this.aborts.get(deploymentId);
    if (!controller || controller.signal.aborted) {
      controller = new AbortController();
      this.aborts.set(deploymentId, controller);
    }
    return controller.signal;
  }

  /** Drives one revision from its stored status to a final one. */
  private async drive(revisionId: string): Promise<void> {
    for (;;) {
      const revision = await this.repo.revisions.get(revisionId);
      if (!revision || isFinished(revision.status)) return;
      const deployment = await this.repo.deployments.get(revision.deployment_id);
      if (!deployment || deployment.status === 'AWAITING_DELETE') return;
      const signal = this.signalFor(deployment.id);
      switch (revision.status) {
        case 'CREATING':
          await this.transition(revision, { status: 'QUEUED' });
          break;
        case 'QUEUED':
          await this.transition(revision, { status: deployment.source === 'github' && revision.redeploy_of === null ? 'AWAITING_BUILD' : 'AWAITING_DEPLOY' });
          break;
        case 'AWAITING_BUILD':
          await this.transition(revision, { status: 'BUILDING' });
          break;
        case 'BUILDING': {
          const result = await this.build(deployment, revision, signal);
          if (signal.aborted) throw new Cancelled();
          const sha = result.commitSha ?? null;
          await this.transition(revision, result.ok ? { status: 'AWAITING_DEPLOY', sha } : { status: 'BUILD_FAILED', message: result.reason, sha });
          break;
        }
        case 'AWAITING_DEPLOY':
          await this.transition(revision, { status: 'DEPLOYING' });
          break;
        case 'DEPLOYING': {
          const failure = await this.deploy(deployment, revision, signal);
          if (signal.aborted) throw new Cancelled();
          await this.transition(revision, failure === null ? { status: 'DEPLOYED' } : { status: 'DEPLOY_FAILED', message: failure });
          break;
        }
        default:
          return;
      }
    }
  }

  /** Stores the revision's next status (and the deployment's side of it) unless it moved on meanwhile. */
  private async transition(before: RevisionRecord, change: { status: RevisionRecord['status']; message?: string; sha?: string | null }): Promise<void> {
    await this.repo.locks.run(before.deployment_id, async () => {
      if (this.stopped) throw new Cancelled();
      const revision = await this.repo.revisions.get(before.id);
      const deployment = await this.repo.deployments.get(before.deployment_id);
      // superseded (SKIPPED) or deleted meanwhile: nothing more to do for it
      if (!revision || revision.status !== before.status || !deployment || deployment.status === 'AWAITING_DELETE') throw new Cancelled();
      const now = timestamp();
      const next: RevisionRecord = {
        ...revision,
        status: change.status,
        // the message carries output of the deployment's own commands
        status_message: change.message === undefined ? null : this.redactorOf(deployment)(change.message),
        updated_at: now,
        source_revision_config: change.sha ? { ...revision.source_revision_config, repo_commit_sha: change.sha } : revision.source_revision_config,
      };
      let deploymentNext: DeploymentRecord | undefined;
      if (revision.status === 'CREATING' && deployment.status === 'AWAITING_DATABASE') {
        deploymentNext = { ...deployment, status: 'READY', updated_at: now };
      } else if (change.status === 'DEPLOYED') {
        deploymentNext = {
          ...deployment,
          status: 'READY',
          active_revision_id: next.id,
          source_config: { ...deployment.source_config, custom_url: this.servedUrl(deployment) },
          updated_at: now,
        };
      }
      await this.repo.store.write(deploymentNext ? [putRevision(next), putDeployment(deploymentNext)] : [putRevision(next)]);
      logTransition(this.log, revision, next, { before: deployment, after: deploymentNext });
    });
  }

  protected redactorOf(deployment: DeploymentRecord): Redact {
    return redactor(secretValues(deployment));
  }

  /** A redeploy runs what the revision it redeploys built (following redeploys of redeploys). */
  protected async builtRevision(revision: RevisionRecord): Promise<RevisionRecord> {
    let current = revision;
    for (let hops = 0; current.redeploy_of && hops < 1000; hops += 1) {
      const original = await this.repo.revisions.get(current.redeploy_of);
      if (!original) break;
      current = original;
    }
    return current;
  }
}
