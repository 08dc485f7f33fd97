// The embedded default deployer: every phase lasts `phaseMs`, then the revision moves to
// the next status (phases.ts). Each transition is persisted before the next one is
// scheduled, so after a crash `resume()` continues from the last stored status. Timers, not
// polling: an idle server does no work.
import type { WriteOp } from '../../../runtime/store/types.ts';
import type { Logger } from '../../../runtime/logger.ts';
import { timestamp } from '../../clock.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from '../records.ts';
import { IN_PROGRESS, UNFINISHED, isFinished, nextStep } from './phases.ts';
import type { Deployer } from './types.ts';

export class SimulatedDeployer implements Deployer {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly phaseMs: number,
    private readonly log: Logger,
  ) {}

  start(): Promise<void> {
    return this.resume();
  }

  submit(revision: RevisionRecord): void {
    this.schedule(`revision:${revision.id}`, () => this.advance(revision.deployment_id, revision.id));
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
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
  }

  private schedule(key: string, step: () => Promise<void>): void {
    if (this.stopped || this.timers.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      const running = step().catch((err) => this.log.error('deployer step failed', { key, err }));
      this.inFlight.add(running);
      void running.finally(() => this.inFlight.delete(running));
    }, this.phaseMs);
    this.timers.set(key, timer);
  }

  private advance(deploymentId: string, revisionId: string): Promise<void> {
    return this.repo.locks.run(deploymentId, async () => {
      if (this.stopped) return;
      const revision = await this.repo.revisions.get(revisionId);
      const deployment = await this.repo.deployments.get(deploymentId);
      // a deployment being deleted is not rolled out any further
      if (!revision || isFinished(revision.status) || !deployment || deployment.status === 'AWAITING_DELETE') return;
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
        source_revision_config: step.repo_commit_sha ? { ...revision.source_revision_config, repo_commit_sha: step.repo_commit_sha } : revision.source_revision_config,
      };
      const ops: WriteOp[] = [putRevision(next)];
      const deploymentNext = this.deploymentAfter(deployment, revision, next, now);
      if (deploymentNext) ops.push(putDeployment(deploymentNext));
      await this.repo.store.write(ops);

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
      if (deployment?.status === 'AWAITING_DELETE') await this.repo.remove(deploymentId);
    });
  }
}
