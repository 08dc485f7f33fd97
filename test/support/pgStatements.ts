/**
 * Counting what a replica sends PostgreSQL: the statement tests of the run path share one tap on
 * the `pg` client and one list of the statements a replica sends by the clock, whatever its runs.
 */
import pg from 'pg';

/**
 * Statements sent by the clock, not by a write: the LISTEN session's keep-alive, the claims'
 * lease renewal and takeover scan, and the solo lock's checks each SOLO_CHECK_MS
 * (postgres/pgCoordination.ts), which made a count of 1 read 3 when a check fell inside it.
 */
const BY_THE_CLOCK = [
  /^SELECT 1$/,
  /SET lease_until/,
  /^SELECT run_id, replica, token FROM agentplane_run_claims/,
  /pg_try_advisory_lock\(\$1, 0\)|pg_advisory_unlock_shared\(\$1, 0\)|NOT granted AND classid/,
];

/** True for a statement the replica sends by the clock (its text as sent, whitespace folded). */
export const isByTheClock = (text: string): boolean => BY_THE_CLOCK.some((clock) => clock.test(text));

/**
 * Calls `heard` with the text of every statement any `pg` client in this process sends (whitespace
 * folded to single spaces), until the returned function restores the client.
 */
export function tapStatements(heard: (text: string) => void): () => void {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    heard((typeof first === 'string' ? first : (first?.text ?? '')).replace(/\s+/g, ' ').trim());
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return () => {
    pg.Client.prototype.query = query;
  };
}
