// Cron expressions, parsed and stepped by croner: five fields, or six with seconds first
// (seven with a year), in UTC unless the cron names an IANA time zone.
import { Cron as CronPattern } from 'croner';

/** Why the schedule or time zone cannot be used, or null when it is fine. */
export function scheduleProblem(schedule: string, timezone?: string | null): string | null {
  try {
    new CronPattern(schedule, { paused: true, timezone: timezone ?? 'UTC' }).nextRun();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The first due time strictly after `after`, or null when the schedule has none left. */
export function nextDue(schedule: string, timezone: string | null | undefined, after: Date, endTime?: string | null): Date | null {
  const next = new CronPattern(schedule, { paused: true, timezone: timezone ?? 'UTC' }).nextRun(after);
  if (!next) return null;
  if (endTime && next.getTime() > Date.parse(endTime)) return null;
  return next;
}
