// How long a page waits before it asks again after failed loads: twice as long after each
// failure in a row, from FIRST_RETRY_MS up to MAX_RETRY_MS. A server that answers 500 to every
// poll (a thread whose state cannot be read) is asked about once a minute instead of every few
// seconds, and each of its answers costs it a logged stack.
export const FIRST_RETRY_MS = 5_000;
export const MAX_RETRY_MS = 60_000;

/** The wait after `failures` (1 or more) failed loads in a row. */
export function retryDelay(failures: number): number {
  const doublings = Math.max(0, Math.floor(failures) - 1);
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** doublings);
}
