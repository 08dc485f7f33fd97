// Notices listeners that stopped calling: a CONNECTED listener not heard from for `timeoutMs`
// becomes DISCONNECTED, and what it reconciles becomes UNKNOWN — the deployments and their
// deployed or in-progress revisions — since nobody can say what runs on its machine now.
// Its next reports put back the statuses it really has (listenerReports.ts).
import type { BackgroundModule } from '../../shared/backgroundModule.ts';
import type { Logger } from '../ports/logger.ts';
import { timestamp } from '../clock.ts';
import { deploymentsOfListener } from './listeners.ts';
import { inDoubtWhenLost } from './listenerRules.ts';
import { putDeployment, putRevision, type ControlPlaneRepository, type DeploymentRecord, type ListenerRecord } from './records.ts';
import { logDeploymentStatus, logTransition } from './transitionLog.ts';

export class ListenerWatch implements BackgroundModule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Listeners could not call while this control plane was down: each gets a full timeout from its start. */
  private watchingSince = Date.now();

  constructor(
    private readonly repo: ControlPlaneRepository,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    // 0: listeners are never given up on
    if (this.timeoutMs === 0) return;
    this.watchingSince = Date.now();
    // a quarter of the timeout: a lost listener is noticed at most 25% late
    this.timer = setInterval(() => void this.look(), Math.max(50, Math.floor(this.timeoutMs / 4)));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look at every connected listener; never two at once. */
  look(): Promise<void> {
    this.running ??= this.markLost()
      .catch((err) => this.log.error('could not check listeners for missed heartbeats; trying again at the next look', { err }))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async markLost(): Promise<void> {
    const cutoff = Date.now() - this.timeoutMs;
    if (this.watchingSince >= cutoff) return;
    for (const listener of await this.repo.listeners.withStatus('CONNECTED')) {
      if (listener.last_heard_at && Date.parse(listener.last_heard_at) >= cutoff) continue;
      const lost = await this.repo.locks.run(`listener:${listener.id}`, async () => {
        const now = await this.repo.listeners.get(listener.id);
        // heard from meanwhile, or gone
        if (!now || now.status !== 'CONNECTED' || (now.last_heard_at && Date.parse(now.last_heard_at) >= cutoff)) return null;
        const next: ListenerRecord = { ...now, status: 'DISCONNECTED', updated_at: timestamp() };
        await this.repo.listeners.put(next);
        return next;
      });
      if (!lost) continue;
      this.log.warn('listener not heard from: its deployments are UNKNOWN until it reports again', {
        listener_id: lost.id,
        last_heard_at: lost.last_heard_at,
        timeout_ms: this.timeoutMs,
      });
      for (const deployment of await deploymentsOfListener(this.repo, lost.tenant_id, lost.id)) await this.markUnknown(deployment, lost);
    }
  }

  private markUnknown(deployment: DeploymentRecord, listener: ListenerRecord): Promise<void> {
    return this.repo.locks.run(deployment.id, async () => {
      const current = await this.repo.deployments.get(deployment.id);
      if (!current || current.status === 'AWAITING_DELETE') return;
      const now = timestamp();
      const message = `Listener ${listener.id} has not been heard from since ${listener.last_heard_at ?? 'it registered'}; the status is unknown until it reports again.`;
      const revisions = (await this.repo.revisions.ofDeployment(current.id)).filter((r) => inDoubtWhenLost(r.status));
      const deploymentNext: DeploymentRecord = { ...current, status: 'UNKNOWN', updated_at: now };
      const revisionsNext = revisions.map((r) => ({ ...r, status: 'UNKNOWN' as const, status_message: message, updated_at: now }));
      await this.repo.write([putDeployment(deploymentNext), ...revisionsNext.map(putRevision)]);
      revisions.forEach((r, i) => logTransition(this.log, r, revisionsNext[i]));
      logDeploymentStatus(this.log, current, 'UNKNOWN');
    });
  }
}
