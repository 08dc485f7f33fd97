// A background duty that must run on exactly one server among those sharing the store (the
// deployer's progress, the cron scheduler, the retention sweeps). The server that wins the
// coordination lease begins a term — it looks at the store for the work in progress, as on
// a start — and ends it when the lease is lost or the server stops; then another server
// wins the lease and begins its own term. Work that a request creates on a server that does
// not lead reaches the leader as a message (`tell`); a message missed while no server
// listened is made good by the leader looking at the store again: when its term begins,
// when its LISTEN connection was re-opened (payload ''), and every `rescanMs` as a slow
// safety net. On the embedded store the one server always leads and messages stay in
// process.
import type { BackgroundModule } from '../shared/backgroundModule.ts';
import type { Coordination } from './ports/coordination.ts';
import type { Logger } from './ports/logger.ts';

export interface Term {
  /** A message for the leader; '' means "look at the store again" (messages may be lost). */
  hear?(payload: string): void;
  /** Ends the term: no new work is started, the step in progress is waited for. */
  end(): Promise<void>;
}

export interface SingletonDutyOptions {
  /** How often the leader looks at the store again when other servers share it (0: never). */
  rescanMs?: number;
}

export class SingletonDuty<T extends Term> {
  private term: T | null = null;
  private lease: { stop(): Promise<void> } | null = null;
  private readonly channel: string;

  constructor(
    private readonly coordination: Coordination,
    readonly name: string,
    private readonly log: Logger,
    /** Begins a term: picks up the work in progress; `signal` aborts when the term ends. */
    private readonly begin: (signal: AbortSignal) => Promise<T>,
    private readonly options: SingletonDutyOptions = {},
  ) {
    this.channel = `agentplane_lead_${name}`;
  }

  /** The term in progress when this server leads, else null. */
  get leading(): T | null {
    return this.term;
  }

  /**
   * Starts competing for the lease. On the embedded store this server leads at once and
   * this resolves once its term has begun (a failure to begin fails the start, as before);
   * with other servers on the store it resolves at once: a server may never lead.
   */
  start(): Promise<void> {
    let began!: () => void;
    let failed!: (err: unknown) => void;
    const first = new Promise<void>((resolve, reject) => ((began = resolve), (failed = reject)));
    this.lease = this.coordination.singleton(this.name, (signal) =>
      this.lead(signal, began).catch((err: unknown) => {
        failed(err);
        throw err;
      }),
    );
    if (this.coordination.shared) {
      first.catch(() => undefined);
      return Promise.resolve();
    }
    return first;
  }

  /** Ends the term, if leading, and gives the lease up. */
  async stop(): Promise<void> {
    await this.lease?.stop();
    this.lease = null;
  }

  /** Hands `payload` to the leader: in process when this server leads, else as a message. */
  tell(payload: string): void {
    if (this.term) {
      this.term.hear?.(payload);
      return;
    }
    this.coordination.notify(this.channel, payload).catch((err: Error) =>
      // the leader finds the work at its next look at the store
      this.log.warn('could not tell the leader about new work; it is picked up at its next look', { singleton: this.name, error: err.message }),
    );
  }

  /**
   * One term, from winning the lease until `signal` aborts (lease lost, or stop); the lease
   * is given up only once the term has ended, so a graceful stop hands over no step half-done.
   */
  private async lead(signal: AbortSignal, began: () => void): Promise<void> {
    const replica = this.coordination.replicaId;
    // alone on the embedded store a server always leads: nothing worth an operator's attention
    const note = (msg: string, fields: Record<string, unknown> = {}) =>
      this.log[this.coordination.shared ? 'info' : 'debug'](msg, { singleton: this.name, replica_id: replica, ...fields });
    note('started leading');
    // messages that arrive while the term begins are heard once it has
    const early: string[] = [];
    let term: T | null = null;
    const unlisten = this.coordination.listen(this.channel, (payload) => (term ? term.hear?.(payload) : early.push(payload)));
    try {
      term = await this.begin(signal);
    } catch (err) {
      unlisten();
      note('stopped leading', { reason: 'the term could not begin' });
      throw err;
    }
    const current: T = term;
    this.term = current;
    for (const payload of early) current.hear?.(payload);
    const rescan = this.coordination.shared && this.options.rescanMs && current.hear ? setInterval(() => current.hear!(''), this.options.rescanMs) : undefined;
    rescan?.unref();
    began();
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    clearInterval(rescan);
    unlisten();
    this.term = null;
    try {
      await current.end();
    } finally {
      note('stopped leading');
    }
  }
}

/** Modules (timers) that run on the leading server only: started by its term, stopped with it. */
export function singletonModules(coordination: Coordination, name: string, log: Logger, modules: BackgroundModule[]): BackgroundModule {
  const duty = new SingletonDuty(coordination, name, log, async () => {
    for (const module of modules) await module.start?.();
    return {
      end: async () => {
        for (const module of [...modules].reverse()) await module.stop?.();
      },
    };
  });
  return { start: () => duty.start(), stop: () => duty.stop() };
}
