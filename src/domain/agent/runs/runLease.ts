// The times of a run claim's lease, from AGENTPLANE_RUN_LEASE_S (`leaseMs`): the longest a
// replica may go without reaching the database (an outage, a hang) and be sure to keep its
// claims.
//
//   renewed every          leaseMs / 4, counted from the last   (renewEveryMs)
//                          renewal's start
//   renewal tried again    every 250 ms while it fails          (retryEveryMs)
//   the replica stops      1.5 × leaseMs after the last renewal (stopAfterMs, by its own
//   its runs itself        it sent that succeeded                monotonic clock)
//   the database lets      2 × leaseMs after that renewal        (heldForMs, by the database's
//   another replica take                                          clock: now() at the renewal)
//
// A renewal is about renewEveryMs old when an outage begins, so an outage shorter than
// leaseMs leaves at least a quarter of it (more than a second or two of a loaded machine) for
// the first renewal once the database is back, before stopAfterMs: the claims stay their
// replica's. A replica that cannot renew for longer stops its runs half a lease before any
// other replica may take them: the time a stopping graph gets. The replica measures from when
// it sent the renewal, the database from when it ran it (later), so only a difference in clock
// rates, not offsets, eats that margin.

export interface LeaseTimes {
  renewEveryMs: number;
  retryEveryMs: number;
  stopAfterMs: number;
  heldForMs: number;
}

export function leaseTimes(leaseMs: number): LeaseTimes {
  const renewEveryMs = Math.max(100, Math.floor(leaseMs / 4));
  return {
    renewEveryMs,
    retryEveryMs: Math.min(250, renewEveryMs),
    stopAfterMs: Math.floor(leaseMs * 1.5),
    heldForMs: leaseMs * 2,
  };
}
