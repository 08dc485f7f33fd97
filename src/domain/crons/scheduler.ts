// Fires due crons. One timer, set for the earliest next_run_date; each due cron is claimed
// (its next due time persisted) before its run is created, so a due time fires at most once
// even across a crash. On start a due time missed while the server was down fires once.
// Among servers sharing the store one scheduler runs at a time (leadingScheduler).
import type { BackgroundModule } from '../../shared/backgroundModule.ts';
import type { Coordination } from '../ports/coordination.ts';
import type { Logger } from '../ports/logger.ts';
import { SingletonDuty } from '../singletonDuty.ts';
import type { CronRecord, CronService } from './cronService.ts';

/** Creates the run of one firing (through the ordinary run queue). */
export type FireCron = (cron: CronRecord) => Promise<void>;

/** Re-plan at least this often, so a long timer does not drift from the wall clock. */
const MAX_SLEEP_MS = 60_000;

export class CronScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking: Promise<void> = Promise.resolve();
  private replan = false;

  constructor(
    private readonly crons: CronService,
    private readonly fire: FireCron,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    this.running = true;
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.ticking;
  }

  /** Looks at the crons again (one changed): re-plans the timer, fires what is due. */
  wake(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.replan = true;
    this.ticking = this.ticking.then(() => this.tick());
  }

  private async tick(): Promise<void> {
    if (!this.running || !this.replan) return;
    this.replan = false;
    const now = this.now();
    let earliest = Infinity;
    for (const cron of await this.crons.due()) {
      const dueAt = Date.parse(cron.next_run_date!);
      if (dueAt <= now.getTime()) {
        const claimed = await this.crons.claim(cron.cron_id, now);
        if (!claimed) continue;
        await this.fireOne(claimed.fired);
        if (claimed.next) earliest = Math.min(earliest, Date.parse(claimed.next));
      } else earliest = Math.min(earliest, dueAt);
    }
    if (!this.running || earliest === Infinity) return;
    const delay = Math.max(0, Math.min(MAX_SLEEP_MS, earliest - this.now().getTime()));
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  private async fireOne(cron: CronRecord): Promise<void> {
    try {
      await this.fire(cron);
      this.log.info('cron fired', { cron_id: cron.cron_id, due: cron.next_run_date, thread_id: cron.thread_id });
    } catch (err) {
      // a firing that could not create its run is logged and not retried: the next due time
      // is already planned, as a missed firing would be
      this.log.error('cron could not create its run', { cron_id: cron.cron_id, error: (err as Error).message });
    }
  }
}

/** How often the leading scheduler looks at the crons again when servers share the store. */
const RESCAN_MS = 60_000;

/**
 * The scheduler of whichever server leads 'cron-scheduler': it starts when its server wins
 * the lease (firing what came due meanwhile, once) and a cron created, changed or deleted
 * on any server wakes it. Each firing is also claimed in the store, so a due time fires once.
 */
export function leadingScheduler(coordination: Coordination, crons: CronService, fire: FireCron, log: Logger): BackgroundModule {
  const scheduler = new CronScheduler(crons, fire, log);
  const duty = new SingletonDuty(
    coordination,
    'cron-scheduler',
    log,
    async () => {
      scheduler.start();
      return { hear: () => scheduler.wake(), end: () => scheduler.stop() };
    },
    { rescanMs: RESCAN_MS },
  );
  crons.onChange(() => duty.tell('changed'));
  return { start: () => duty.start(), stop: () => duty.stop() };
}
