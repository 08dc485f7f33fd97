// How fast a listener may send log lines: a token bucket per listener, in bytes of log text.
// A listener catching up after a restart sends in bursts; one that floods (a deployment
// printing without end) is slowed to the rate, so the control plane's disk and request loop
// stay the other tenants' too. Kept in memory per replica: a listener spread over replicas
// by a load balancer gets the rate from each.

/** On average 1 MiB of log text a second per listener, in bursts of up to 8 MiB. */
export const LOG_BYTES_PER_S = 1024 * 1024;
export const LOG_BURST_BYTES = 8 * 1024 * 1024;

interface Bucket {
  bytes: number;
  at: number;
}

export class LogBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond = LOG_BYTES_PER_S,
    private readonly burst = LOG_BURST_BYTES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `bytes` from the listener's budget: null when they fit, else the whole seconds until they would. */
  take(listenerId: string, bytes: number): number | null {
    // a batch larger than the burst (a raised body limit) passes on a full budget, never never
    const cost = Math.min(bytes, this.burst);
    const now = this.now();
    const bucket = this.buckets.get(listenerId) ?? { bytes: this.burst, at: now };
    bucket.bytes = Math.min(this.burst, bucket.bytes + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(listenerId, bucket);
    if (cost <= bucket.bytes) {
      bucket.bytes -= cost;
      return null;
    }
    return Math.max(1, Math.ceil((cost - bucket.bytes) / this.perSecond));
  }
}
