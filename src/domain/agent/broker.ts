// Per-run event logs. The run worker only publishes; SSE handlers, join and A2A only read,
// so streaming, resuming with Last-Event-ID and background runs share one mechanism.
// Logs of finished runs are kept for a bounded number of runs, then dropped (the run's
// outcome stays in the store).
import type { RunEvent } from './service.ts';

class EventLog {
  readonly events: RunEvent[] = [];
  ended = false;
  /** The join/wait answer, kept while the log is. */
  result?: unknown;
  private waiters: (() => void)[] = [];

  push(event: string, data: unknown): void {
    if (this.ended) return;
    this.events.push({ id: String(this.events.length), event, data });
    this.wake();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
  }

  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

export class RunBroker {
  private readonly logs = new Map<string, EventLog>();
  private readonly finished: string[] = [];

  constructor(private readonly keepFinished = 500) {}

  /** Opens (or returns) the log of a run; called when the run is queued. */
  open(runId: string): void {
    if (!this.logs.has(runId)) this.logs.set(runId, new EventLog());
  }

  has(runId: string): boolean {
    return this.logs.has(runId);
  }

  publish(runId: string, event: string, data: unknown): void {
    let log = this.logs.get(runId);
    if (!log) this.logs.set(runId, (log = new EventLog()));
    log.push(event, data);
  }

  /** Closes a run's log with the final `end` event. */
  end(runId: string): void {
    const log = this.logs.get(runId);
    if (!log || log.ended) return;
    log.push('end', null);
    log.end();
    this.finished.push(runId);
    while (this.finished.length > this.keepFinished) this.logs.delete(this.finished.shift()!);
  }

  setResult(runId: string, result: unknown): void {
    const log = this.logs.get(runId);
    if (log) log.result = result;
  }

  result(runId: string): unknown {
    return this.logs.get(runId)?.result;
  }

  /** Resolves when the run's log has ended (or at once when there is no open log). */
  async ended(runId: string, signal?: AbortSignal): Promise<void> {
    const log = this.logs.get(runId);
    if (!log) return;
    const aborted = signal ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) : null;
    while (!log.ended && !signal?.aborted) await (aborted ? Promise.race([log.next(), aborted]) : log.next());
  }

  drop(runId: string): void {
    this.logs.get(runId)?.end();
    this.logs.delete(runId);
  }

  /**
   * The run's events after `lastEventId` (from the start without one), live until `end`.
   * Yields nothing when the log is unknown; callers synthesise an outcome then.
   */
  async *join(runId: string, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    const log = this.logs.get(runId);
    if (!log) return;
    const parsed = options.lastEventId === undefined ? -1 : Number(options.lastEventId);
    let index = Number.isInteger(parsed) ? parsed + 1 : 0;
    const signal = options.signal;
    const aborted = signal ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) : null;
    while (!signal?.aborted) {
      while (index < log.events.length) {
        yield log.events[index];
        index += 1;
        if (signal?.aborted) return;
      }
      if (log.ended) return;
      await (aborted ? Promise.race([log.next(), aborted]) : log.next());
    }
  }
}
