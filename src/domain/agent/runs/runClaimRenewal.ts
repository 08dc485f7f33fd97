// Keeps the claims of the runs executing here: renews them every quarter of the lease (every
// 250 ms while that fails), stops the runs whose claim was taken over or whose cancel was asked
// elsewhere (the renewal carries it), and stops a run itself before a claim it could not renew
// may be taken over (runLease.ts).
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../ports/logger.ts';
import type { RunClaims } from '../../ports/runClaims.ts';
import type { LeaseTimes } from './runLease.ts';
import type { InFlight } from './runInFlight.ts';
import type { CancelAction, StopReason } from './runStateMachine.ts';

export interface ClaimRenewalDeps {
  claims: RunClaims;
  log: Logger;
  /** The runs executing here, by run id. */
  inFlight: ReadonlyMap<string, InFlight>;
  /** Asks a run executing here to stop; false when it is not. */
  stopLocal(runId: string, reason: StopReason): boolean;
}

export class ClaimRenewal {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Since when renewals fail (performance.now()); null while they succeed. */
  private failingSince: number | null = null;

  constructor(private readonly deps: ClaimRenewalDeps) {}

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Renews every `renewEveryMs` from the start of the last renewal (a slow answer does not
   * stretch the period); while renewals fail, every `retryEveryMs`, so the claims are kept the
   * moment the database is back.
   */
  start(lease: LeaseTimes): void {
    const next = (ms: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void renewal(), Math.max(0, ms));
      this.timer.unref();
    };
    const renewal = async () => {
      const began = performance.now();
      try {
        await this.renew();
        if (this.failingSince !== null) this.deps.log.info('run claims renewed again', { failing_ms: Math.round(performance.now() - this.failingSince) });
        this.failingSince = null;
        next(began + lease.renewEveryMs - performance.now());
      } catch (err) {
        if (this.failingSince === null) {
          this.failingSince = began;
          this.deps.log.warn('could not renew the run claims; trying again every few hundred ms', { retry_ms: lease.retryEveryMs, err });
        }
        next(began + lease.retryEveryMs - performance.now());
      }
    };
    next(lease.renewEveryMs);
  }

  private async renew(): Promise<void> {
    // a claim still being taken is not the database's yet: renewing it would find it lost
    const held = [...this.deps.inFlight.values()].filter((running) => running.claim && running.stop !== 'lost');
    const sentAt = performance.now();
    const { lost, cancels } = await this.deps.claims.renew(held.map((running) => running.claim!));
    const gone = new Set(lost);
    for (const running of held) if (!gone.has(running.claim!.run.run_id)) running.renewedAt = Math.max(running.renewedAt, sentAt);
    for (const runId of lost) {
      this.deps.log.warn('another replica took over this run (this one was thought gone); stopping it here', { run_id: runId });
      this.deps.stopLocal(runId, 'lost');
    }
    for (const { runId, action } of cancels) this.deps.stopLocal(runId, action as CancelAction);
  }

  /** Stops the runs whose claim could not be renewed for `stopAfterMs`: before another replica may take them over. */
  stopUnrenewed(stopAfterMs: number): void {
    const now = performance.now();
    for (const [runId, running] of this.deps.inFlight) {
      if (!running.claim || running.stop || now - running.renewedAt < stopAfterMs) continue;
      this.deps.log.warn("could not renew this run's claim in time; stopping it here before another replica may take it over", {
        run_id: runId,
        attempt: running.claim.run.attempt,
        unrenewed_ms: Math.round(now - running.renewedAt),
      });
      this.deps.stopLocal(runId, 'unrenewed');
    }
  }
}
