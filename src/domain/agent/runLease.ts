// The times of a run claim's lease, from AGENTPLANE_RUN_LEASE_S (`leaseMs`): the longest a
// replica may go without reaching the database (an outage, a hang) and keep its claims.
//
//   renewed every          leaseMs / 3                          (renewEveryMs)
//   renewal tried again    every 250 ms while it fails          (retryEveryMs)
//   the replica stops      leaseMs + renewEveryMs after the     (stopAfterMs, by its own
//   its runs itself        last renewal it sent that succeeded   monotonic clock)
//   the database lets      leaseMs + 2 × renewEveryMs after     (heldForMs, by the database's
//   another replica take   that renewal                          clock, now() at the renewal)
//
// A renewal is at most renewEveryMs old when an outage begins, so an outage shorter than
// leaseMs never reaches stopAfterMs: the claims stay their replica's, and the first renewal
// once the database is back (within retryEveryMs) extends them. A replica that cannot renew
// for longer stops its runs renewEveryMs before any other replica may take them: the time a
// stopping graph gets. The replica measures from when it sent the renewal, the database from
// when it ran it (later), so only a difference in clock rates, not offsets, eats that margin.

export interface LeaseTimes {
  renewEveryMs: number;
  retryEveryMs: number;
  stopAfterMs: number;
  heldForMs: number;
}

export function leaseTimes(leaseMs: number): LeaseTimes {
  const renewEveryMs = Math.max(100, Math.floor(leaseMs / 3));
  return {
    renewEveryMs,
    retryEveryMs: Math.min(250, renewEveryMs),
    stopAfterMs: leaseMs + renewEveryMs,
    heldForMs: leaseMs + 2 * renewEveryMs,
  };
}
