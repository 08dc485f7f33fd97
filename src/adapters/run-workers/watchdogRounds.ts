// The run watchdog judges a run by the time since the main thread last heard of it. While the
// main thread is blocked (a long synchronous stretch of the server's own, a full GC, a machine
// that gave it no CPU) it hears nothing: the workers' heartbeats wait in its queue. The round
// that comes after such a gap would count the gap against every run, and Node runs an overdue
// timer before it reads the queued messages, so a run whose heartbeats were all there was
// stopped as stalled (CI of 2026-11-27, the watchdog test that blocks the server's thread).
// So a round that comes late says by how much, the runs are not charged for it, and that round
// judges nothing: the next one comes after the queued heartbeats were read.

export class WatchdogRounds {
  private last: number;

  constructor(
    /** How often a round is due. */
    private readonly roundMs: number,
    now: number,
  ) {
    this.last = now;
  }

  /**
   * Milliseconds the main thread was away before this round, beyond the round's own interval
   * and one more of slack (a busy but working loop): 0 for a round on time.
   */
  blockedBefore(now: number): number {
    const late = now - this.last - this.roundMs;
    this.last = now;
    return late > this.roundMs ? late : 0;
  }
}
