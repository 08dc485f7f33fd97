// How fast one remote address has its WebSocket upgrades refused. A refusal costs the server a
// connection accepted, a request parsed, an answer written and a socket closed; a client that
// opens key-less upgrades again as soon as each is let go had ~8,000 refused a second on
// loopback, most of the server's CPU, and another tenant's p99 went up 4x (issue 83). Each
// address has a budget of refusals (a burst, then a steady rate); one over it is answered when
// the budget allows, its socket held meanwhile among the address's unsettled ones
// (unsettledUpgrades.ts, which bounds how many), so a client that waits for its answers is
// slowed to the rate, and one that does not is cut at that bound, unanswered. Each refusal is
// made in a turn of the event loop of its own, in the address's rotation (shared/turns.ts):
// paced refusals whose timers fell due together (the loop late by a few ms on a busy machine)
// were written and closed back to back, another tenant's request waiting behind all of them.
import { ownTurn } from '../../../shared/turns.ts';

export class RefusalPace {
  /** When each address's budget is next whole again (the GCRA's theoretical arrival time), ms. */
  private readonly fullAt = new Map<string, number>();

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How long `address`'s next refusal waits, in ms (0: now), counted against its budget. */
  delayOf(address: string): number {
    const now = this.now();
    const interval = 1_000 / this.perSecond;
    const at = Math.max(this.fullAt.get(address) ?? now, now) + interval;
    this.fullAt.set(address, at);
    if (this.fullAt.size > 4_096) this.forgetWhole(now);
    return Math.max(0, at - now - this.burst * interval);
  }

  /**
   * Makes `refusal` of `address`'s when its budget allows (delayOf), in a turn of the loop of its
   * own; the function returned cancels it while it waits (its socket gone).
   */
  schedule(address: string, refusal: () => void): () => void {
    let cancelled = false;
    const inTurn = () => void ownTurn(`peer:${address}`).then(() => cancelled || refusal());
    const delay = this.delayOf(address);
    const later = delay === 0 ? undefined : setTimeout(inTurn, delay).unref();
    if (!later) inTurn();
    return () => {
      cancelled = true;
      clearTimeout(later);
    };
  }

  /** How many addresses are remembered (refused lately). */
  remembered(): number {
    return this.fullAt.size;
  }

  /** Addresses whose budget is whole again are forgotten: the map holds only those refused lately. */
  private forgetWhole(now: number): void {
    for (const [address, at] of this.fullAt) if (at <= now) this.fullAt.delete(address);
  }
}
