// How fast each tenant may send requests: a bucket per tenant that holds up to `burst`
// requests and refills at `perSecond`. A tenant flooding the API is answered 429 with the
// seconds until its next request would be let in, before anything of its request is done, so
// its flood costs the others little. Tenants are the server's configured ones (its keys), so
// the buckets are as few.

export class TenantRates {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly perSecond: number,
    readonly burst: number = perSecond,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one request of `tenant`'s: 0 when it may go, else the seconds until one may (nothing taken). */
  take(tenant: string): number {
    const now = this.now();
    let bucket = this.buckets.get(tenant);
    if (!bucket) this.buckets.set(tenant, (bucket = { tokens: this.burst, at: now }));
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / this.perSecond;
  }
}
