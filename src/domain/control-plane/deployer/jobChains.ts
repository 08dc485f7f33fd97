// One job at a time per deployment: each deployment's jobs run in order, each retried after a
// failure (it continues from what is stored, so running it again is safe) until it is done, the
// owner stops, or it is cancelled on purpose. The real deployers queue their work through this.
import type { Logger } from '../../ports/logger.ts';
import { retryUntilDone } from '../../retry.ts';

export class JobChains {
  /** The tail of each deployment's chain. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly signal: AbortSignal,
    private readonly log: Logger,
    private readonly firstRetryMs: number,
    /** A job stopped on purpose: not retried, not an error. */
    private readonly isCancel: (err: unknown) => boolean,
  ) {}

  enqueue(deploymentId: string, job: () => Promise<void>): void {
    if (this.signal.aborted) return;
    const previous = this.tails.get(deploymentId) ?? Promise.resolve();
    const next = previous
      .then(() =>
        this.signal.aborted
          ? undefined
          : retryUntilDone(job, {
              signal: this.signal,
              firstDelayMs: this.firstRetryMs,
              maxDelayMs: 30_000,
              isFinal: this.isCancel,
              onFailure: (err, attempt, retryInMs) =>
                this.log.error('deployer step failed; trying again', { deployment_id: deploymentId, attempt, retry_in_ms: retryInMs, err }),
            }),
      )
      .catch((err) => {
        if (!this.isCancel(err))
          this.log.error('deployer step not finished before the stop; it resumes on the next start', { deployment_id: deploymentId, err });
      });
    this.tails.set(deploymentId, next);
    void next.finally(() => {
      if (this.tails.get(deploymentId) === next) this.tails.delete(deploymentId);
    });
  }

  /** Waits for every chain (after the signal is aborted, their jobs end soon). */
  async settled(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
