// How fast each tenant may send requests: a bucket per tenant that holds up to `burst`
// requests and refills at `perSecond`. A tenant flooding the API is answered 429 with the
// seconds until its next request would be let in, before anything of its request is done, so
// its flood costs the others little. Tenants are the server's configured ones (its keys), so
// the buckets are as few.
//
// A refusal is answered only once the tenant may retry (its Retry-After): answered at once, a
// client that sends its next request as soon as the last is answered (32 such connections of
// one tenant, issue 83's flood) kept the server refusing as fast as it could, and every other
// tenant's request waited behind its refusals. Held, each of its connections costs one refusal
// a second. Held refusals are few per tenant (HELD_REFUSALS): past them, one is answered at once.
// A tenant's connections refused together fall due together: each held refusal is answered in a
// turn of the event loop of its own, in the tenant's rotation (shared/turns.ts), so another
// tenant's request read meanwhile is handled between any two of them, not after all 64.
import { ownTurn } from '../../shared/turns.ts';

/** The refusals of one tenant held at once; past that, answered at once (each holds a connection). */
export const HELD_REFUSALS = 64;

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

  private readonly held = new Map<string, number>();

  /**
   * Waits `seconds` before a refusal of `tenant`'s is answered, then its turn of the loop,
   * unless HELD_REFUSALS of its refusals wait already: false then, answered at once.
   */
  async hold(tenant: string, seconds: number): Promise<boolean> {
    const holding = this.held.get(tenant) ?? 0;
    if (holding >= HELD_REFUSALS) return false;
    this.held.set(tenant, holding + 1);
    try {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      await ownTurn(tenant);
      return true;
    } finally {
      const left = (this.held.get(tenant) ?? 1) - 1;
      if (left === 0) this.held.delete(tenant);
      else this.held.set(tenant, left);
    }
  }
}
