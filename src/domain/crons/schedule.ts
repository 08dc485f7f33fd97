// Cron expressions, parsed and stepped by croner: five fields, or six with seconds first
// (seven with a year), in UTC unless the cron names an IANA time zone. A tenant's cron fires at
// most once every AGENTPLANE_MIN_CRON_INTERVAL_S (default 60): a firing is a run, made outside
// the tenant's request rate, and 100 crons of `* * * * * *` were 100 runs a second that nothing
// refused. The upstream JS dev server implements no crons to compare with.
import { Cron as CronRunner, CronPattern } from 'croner';

/** Why the schedule or time zone cannot be used, or null when it is fine; `minIntervalS`: the fewest seconds between two firings (1: any). */
export function scheduleProblem(schedule: string, timezone: string | null | undefined, minIntervalS = 1): string | null {
  let apart: number;
  try {
    new CronRunner(schedule, { paused: true, timezone: timezone ?? 'UTC' }).nextRun();
    // a pattern the runner takes may still be one CronPattern refuses (" :0": the conformance
    // fuzzer's 500, session 26): its refusal is the schedule's problem too
    apart = secondsApart(schedule, timezone);
  } catch (err) {
    return (err as Error).message;
  }
  if (apart >= minIntervalS) return null;
  return (
    `schedule ${JSON.stringify(schedule)} fires ${apart} s apart; a tenant's cron fires at most once every ${minIntervalS} s ` +
    `(AGENTPLANE_MIN_CRON_INTERVAL_S): give its seconds field one value (e.g. "0 */5 * * * *") or use five fields, ` +
    `or ask the operator to lower AGENTPLANE_MIN_CRON_INTERVAL_S.`
  );
}

/**
 * The fewest seconds between two firings that the seconds field allows: 60 when it names one
 * second (the minute fields step by minutes), else the least gap between its seconds, the last
 * of one minute to the first of the next included.
 */
function secondsApart(schedule: string, timezone: string | null | undefined): number {
  const seconds = new CronPattern(schedule, timezone ?? 'UTC').second.flatMap((on, second) => (on ? [second] : []));
  let least = 60 + seconds[0]! - seconds[seconds.length - 1]!;
  for (let i = 1; i < seconds.length; i++) least = Math.min(least, seconds[i]! - seconds[i - 1]!);
  return least;
}

/**
 * The first due time strictly after `after`, or null when the schedule has none left. With
 * `lastDue` (the due time that fires now), never less than `minIntervalS` after it: a schedule
 * stored before the bound existed fires that often, not at each of its seconds.
 */
export function nextDue(
  schedule: string,
  timezone: string | null | undefined,
  after: Date,
  endTime?: string | null,
  lastDue?: Date | null,
  minIntervalS = 1,
): Date | null {
  const from = lastDue ? Math.max(after.getTime(), lastDue.getTime() + minIntervalS * 1000 - 1) : after.getTime();
  const next = new CronRunner(schedule, { paused: true, timezone: timezone ?? 'UTC' }).nextRun(new Date(from));
  if (!next) return null;
  if (endTime && next.getTime() > Date.parse(endTime)) return null;
  return next;
}
