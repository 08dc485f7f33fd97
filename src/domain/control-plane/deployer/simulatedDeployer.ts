// The embedded default deployer: every phase lasts `phaseMs`, then the revision moves to
// the next status (phases.ts). Each transition is persisted before the next one is
// scheduled, so after a crash `resume()` continues from the last stored status. Timers, not
// polling: an idle server does no work.
import type { RevisionLogLine, RevisionLogs, RevisionStatus } from '../../../../generated/control-plane/types.gen.ts';
import type { WriteOp } from '../../ports/store.ts';
import type { Logger } from '../../ports/logger.ts';
import { timestamp } from '../../clock.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from '../records.ts';
import { IN_PROGRESS, UNFINISHED, isFinished, nextStep } from './phases.ts';
import { pageOfLog, type LogRequest } from './revisionLogs.ts';
import { retryUntilDone } from '../../retry.ts';
import { maskRepoUrl } from '../repoUrl.ts';
import { logDeploymentDeleted, logTransition } from '../transitionLog.ts';
import type { Deployer, LogKind } from './types.ts';

export class SimulatedDeployer implements Deployer {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private stopped = false;

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly phaseMs: number,
    private readonly log: Logger,
    /** First wait before a failed step is tried again (doubling, up to 30 s). */
    private readonly retryMs = 200,
  ) {}

  start(): Promise<void> {
    return this.resume();
  }

  submit(revision: RevisionRecord): void {
    this.schedule(`revision:${revision.id}`, () => this.advance(revision.deployment_id, revision.id, revision.status));
  }

  retire(deploymentId: string): void {
    this.schedule(`delete:${deploymentId}`, () => this.cleanUp(deploymentId));
  }

  async resume(): Promise<void> {
    for (const status of UNFINISHED) {
      for (const revision of await this.repo.revisions.list({ where: { status } })) this.submit(revision);
    }
    for (const deployment of await this.repo.deployments.list({ where: { status: 'AWAITING_DELETE' } })) this.retire(deployment.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
  }

  /** Nothing really runs: the log says which simulated phases the revision went through. */
  async readLogs(revision: RevisionRecord, kind: LogKind, request: LogRequest): Promise<RevisionLogs> {
    const deployment = await this.repo.deployments.get(revision.deployment_id);
    return pageOfLog(simulatedLog(revision, deployment, kind), request, isFinished(revision.status));
  }

  private schedule(key: string, step: () => Promise<void>): void {
    if (this.stopped || this.timers.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      // a step re-reads what is stored, so running it again after a failure is safe
      const running = retryUntilDone(step, {
        signal: this.stopping.signal,
        firstDelayMs: this.retryMs,
        maxDelayMs: 30_000,
        onFailure: (err, attempt, retryInMs) => this.log.error('deployer step failed; trying again', { key, attempt, retry_in_ms: retryInMs, err }),
      }).catch((err) => this.log.error('deployer step not finished before the stop; it resumes on the next start', { key, err }));
      this.inFlight.add(running);
      void running.finally(() => this.inFlight.delete(running));
    }, this.phaseMs);
    this.timers.set(key, timer);
  }

  /** One step of a revision submitted in status `from`. */
  private advance(deploymentId: string, revisionId: string, from: RevisionStatus): Promise<void> {
    return this.repo.locks.run(deploymentId, async () => {
      if (this.stopped) return;
      const revision = await this.repo.revisions.get(revisionId);
      const deployment = await this.repo.deployments.get(deploymentId);
      // a deployment being deleted is not rolled out any further
      if (!revision || isFinished(revision.status) || !deployment || deployment.status === 'AWAITING_DELETE') return;
      // moved on since it was submitted: submitted twice (a look at the store while its step
      // ran, or a write whose success was unknown and is retried); each status gets its full
      // phase once, and the revision goes on from where it is
      if (revision.status !== from) return this.submit(revision);
      const siblings = await this.repo.revisionsOf(deploymentId);
      // one build/deploy at a time per deployment: a queued revision waits for the slot
      if (revision.status === 'QUEUED' && siblings.some((r) => r.id !== revision.id && IN_PROGRESS.has(r.status))) return;

      const step = nextStep(revision, deployment);
      const now = timestamp();
      const next: RevisionRecord = {
        ...revision,
        status: step.status,
        status_message: step.status_message,
        updated_at: now,
        source_revision_config: step.repo_commit_sha
          ? { ...revision.source_revision_config, repo_commit_sha: step.repo_commit_sha }
          : revision.source_revision_config,
      };
      const ops: WriteOp[] = [putRevision(next)];
      const deploymentNext = this.deploymentAfter(deployment, revision, next, now);
      if (deploymentNext) ops.push(putDeployment(deploymentNext));
      await this.repo.store.write(ops);
      logTransition(this.log, revision, next, { before: deployment, after: deploymentNext });

      if (!isFinished(next.status)) this.submit(next);
      else for (const waiting of siblings.filter((r) => r.status === 'QUEUED')) this.submit(waiting);
    });
  }

  /** The deployment's side of a transition: database ready, or a new active revision. */
  private deploymentAfter(deployment: DeploymentRecord, before: RevisionRecord, after: RevisionRecord, now: string): DeploymentRecord | undefined {
    if (before.status === 'CREATING' && deployment.status === 'AWAITING_DATABASE') {
      return { ...deployment, status: 'READY', updated_at: now };
    }
    if (after.status === 'DEPLOYED') return { ...deployment, active_revision_id: after.id, updated_at: now };
    return undefined;
  }

  private cleanUp(deploymentId: string): Promise<void> {
    return this.repo.locks.run(deploymentId, async () => {
      if (this.stopped) return;
      const deployment = await this.repo.deployments.get(deploymentId);
      if (deployment?.status !== 'AWAITING_DELETE') return;
      await this.repo.remove(deploymentId);
      logDeploymentDeleted(this.log, deploymentId, 'cleaned up');
    });
  }
}

const BUILD_REACHED: ReadonlySet<string> = new Set(['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED', 'DEPLOY_FAILED', 'BUILD_FAILED']);
const DEPLOY_REACHED: ReadonlySet<string> = new Set(['DEPLOYING', 'DEPLOYED', 'DEPLOY_FAILED']);

function simulatedLog(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind): RevisionLogLine[] {
  const line = (message: string, level: RevisionLogLine['level'] = 'INFO'): RevisionLogLine => ({ timestamp: revision.updated_at, level, message });
  const config = revision.source_revision_config;
  if (kind === 'build') {
    if (!BUILD_REACHED.has(revision.status) || revision.redeploy_of) return [];
    // an image deployment has no repository: its build step is pulling the image
    const lines =
      deployment?.source === 'external_docker'
        ? [line(`[simulated] Pulling the image ${config.image_uri ?? '(none given)'}`)]
        : [
            line(
              `[simulated] Fetching ${maskRepoUrl(deployment?.source_config.repo_url ?? null) ?? 'the repository'} at ${config.repo_ref ?? 'its default branch'}`,
            ),
          ];
    if (config.repo_commit_sha) lines.push(line(`[simulated] Checked out ${config.repo_commit_sha}`));
    if (revision.status === 'BUILD_FAILED') lines.push(line(revision.status_message ?? 'Build failed', 'ERROR'));
    else if (revision.status !== 'BUILDING') lines.push(line('[simulated] Build finished'));
    return lines;
  }
  if (!DEPLOY_REACHED.has(revision.status)) return [];
  const lines = [line(`[simulated] Starting the agent server${config.image_uri ? ` from ${config.image_uri}` : ''}`)];
  if (revision.status === 'DEPLOY_FAILED') lines.push(line(revision.status_message ?? 'Deploy failed', 'ERROR'));
  if (revision.status === 'DEPLOYED') lines.push(line('[simulated] The agent server answers /ok'));
  return lines;
}
