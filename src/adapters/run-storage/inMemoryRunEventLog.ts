// Per-run event logs in process memory (the RunEventLog port: ports/runEventLog.ts). The run worker only publishes; SSE handlers, join and A2A only read,
// so streaming, resuming with Last-Event-ID and background runs share one mechanism.
// Logs of finished runs are kept for a bounded number of runs and a bounded number of bytes,
// the oldest dropped first (the run's outcome stays in the store, and a reader of a dropped
// log is answered from it). A finished log of a long thread holds its whole last state: 25
// runs appending 400 KB each kept ~250 MB by count alone (issue 67). The server's own logs on the embedded store; on PostgreSQL
// the replica executing a run keeps its live log here too (pgRunEventLog.ts).
import type { RunEvent } from '../../domain/agent/runs/runEvent.ts';
import type { JoinOptions, RunEventLog } from '../../domain/ports/runEventLog.ts';
import { PROTOCOL_LOG_EVENT } from '../../domain/agent/protocol/events.ts';
import { JsonText } from '../../shared/jsonText.ts';
import { resultBytesOf, resultOfBytes } from './keptResult.ts';

/** Finished logs kept by default: how many, and how many bytes of event text in all. */
export const KEEP_FINISHED_LOGS = 200;
// 16 MB: with a thread's checkpoints holding its messages once (channelChains.ts), 64 MB of
// finished logs was most of what a burst of large runs left live on the main thread (a late
// reader of a dropped log is answered from the store)
export const KEEP_FINISHED_BYTES = 16 * 1024 * 1024;

class EventLog {
  events: RunEvent[] = [];
  ended = false;
  /** The join/wait answer, kept while the log is: as set, or (once its readers had it) as the bytes of its JSON (keptResult.ts). */
  result?: unknown;
  resultBytes?: Buffer;
  /** Readers waiting for its end (InMemoryRunEventLog.ended), and whether there were any when it ended. */
  endWaiters = 0;
  awaited = false;
  private waiters: (() => void)[] = [];

  push(event: string, data: unknown): void {
    if (this.ended) return;
    this.events.push({ id: String(this.events.length), event, data });
    this.wake();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.awaited = this.endWaiters > 0;
    this.wake();
  }

  /** Keeps the join answer as the bytes of its JSON, unless the log holds it anyway: the parse of its last `values` event's text. */
  keepResult(): void {
    const last = this.events.findLast((e) => e.event === 'values')?.data;
    const bytes = resultBytesOf(this.result, (value) => last instanceof JsonText && last.isParsed && last.value === value);
    if (!bytes) return;
    this.resultBytes = bytes;
    this.result = undefined;
  }

  /**
   * The bytes a finished log holds that can be known without serialising anything: the text of
   * the events a run worker posted (twice once parsed: the join answer is that parse). Data held
   * as objects (graphs on the main thread) shares its messages with the thread's state and
   * counts nothing.
   */
  bytes(): number {
    let total = 0;
    for (const e of this.events) if (e.data instanceof JsonText) total += e.data.length * (e.data.isParsed ? 2 : 1);
    return total;
  }

  /**
   * Keeps what a late reader needs (metadata, the final values, error, end) and lets the
   * intermediate events go: a finished log must not pin every state the run went through.
   * Readers already iterating hold the previous array and are unaffected.
   */
  compact(): void {
    const lastValues = this.events.findLast((e) => e.event === 'values');
    // a protocol run's events are its thread's history, replayed to subscribers from any point
    this.events = this.events.filter(
      (e) => e === lastValues || e.event === 'metadata' || e.event === 'error' || e.event === 'end' || e.event === PROTOCOL_LOG_EVENT,
    );
  }

  /** Settles at the next event, or when `stop.wake` is called (by the reader's abort listener: untilAborted). */
  nextOr(stop: { wake?: () => void }): Promise<void> {
    return new Promise((resolve) => {
      stop.wake = resolve;
      this.waiters.push(resolve);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** What is done to each item added, at the next turn of the loop: one immediate for all of them. */
class NextTurn<T> {
  private items: T[] = [];
  private scheduled: NodeJS.Immediate | null = null;

  constructor(private readonly each: (item: T) => void) {}

  add(item: T): void {
    this.items.push(item);
    this.scheduled ??= setImmediate(() => {
      const items = this.items;
      this.items = [];
      this.scheduled = null;
      for (const item of items) this.each(item);
    });
  }
}

export class InMemoryRunEventLog implements RunEventLog {
  private readonly logs = new Map<string, EventLog>();
  /** Whose run each log is (see ownerOf): a log outlives a stateless run's records. */
  private readonly owners = new Map<string, string>();
  /** In the order they ended; `at`: when (performance.now()). */
  private readonly finished: { runId: string; bytes: number; at: number }[] = [];
  private finishedBytes = 0;
  /** Readers of thread streams waiting for the thread's next run. */
  private readonly threadWaiters = new Map<string, Set<() => void>>();

  /** Event texts held as bytes at the next turn of the loop (packSoon). */
  private readonly packing = new NextTurn<JsonText>((text) => text.pack());

  /** Finished logs whose join answer is kept as bytes at the next turn of the loop (keepResultSoon). */
  private readonly keeping = new NextTurn<EventLog>((log) => log.keepResult());

  /** A heap budget the finished logs are counted in (countIn). */
  private budget?: { readonly budget: number; grown(): void };

  constructor(
    private readonly keepFinished = KEEP_FINISHED_LOGS,
    private keepFinishedBytes = KEEP_FINISHED_BYTES,
  ) {}

  /**
   * Counts the finished logs in a heap budget shared with others (the embedded store's value
   * cache, issue 91): they take at most a quarter of it, and tell it when they have grown.
   */
  countIn(budget: { readonly budget: number; grown(): void }): void {
    this.budget = budget;
    this.keepFinishedBytes = Math.min(this.keepFinishedBytes, Math.floor(budget.budget / 4));
  }

  /** The bytes the finished logs kept hold (EventLog.bytes). */
  get finishedHeld(): number {
    return this.finishedBytes;
  }

  /** Opens (or returns) the log of a run; called when the run is queued. */
  async open(runId: string, owner: string, threadId?: string): Promise<void> {
    if (!this.logs.has(runId)) this.logs.set(runId, new EventLog());
    this.owners.set(runId, owner);
    const waiters = threadId === undefined ? undefined : this.threadWaiters.get(threadId);
    if (waiters) {
      this.threadWaiters.delete(threadId!);
      for (const wake of waiters) wake();
    }
  }

  /** Resolves when a run is next queued on the thread, or when `signal` aborts. */
  nextRunOn(threadId: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      let waiters = this.threadWaiters.get(threadId);
      if (!waiters) this.threadWaiters.set(threadId, (waiters = new Set()));
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        waiters!.delete(wake);
        if (waiters!.size === 0 && this.threadWaiters.get(threadId) === waiters) this.threadWaiters.delete(threadId);
        resolve();
      };
      waiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async has(runId: string): Promise<boolean> {
    return this.logs.has(runId);
  }

  /** Whether the run's log is kept here and has ended (then compacted: see EventLog.compact). */
  hasEnded(runId: string): boolean {
    return this.logs.get(runId)?.ended === true;
  }

  /** The owner the run's log was opened for; undefined without a log. */
  async ownerOf(runId: string): Promise<string | undefined> {
    return this.logs.has(runId) ? this.owners.get(runId) : undefined;
  }

  async begin(_runId: string, _lost: (error: unknown) => void, _attempt: number): Promise<void> {
    // the log was opened when the run was queued (or recovered), and a new attempt continues
    // it; events in memory cannot be lost
  }

  executed(_runId: string): void {
    // every event is in memory as it is published: nothing waits
  }

  publish(runId: string, event: string, data: unknown): void {
    let log = this.logs.get(runId);
    if (!log) this.logs.set(runId, (log = new EventLog()));
    if (log.ended) return;
    log.push(event, data);
    if (data instanceof JsonText) this.packSoon(data);
  }

  /**
   * An event's text held as bytes, off V8's heap (JsonText.pack), from the next turn of the
   * loop: the readers woken by it (a thread's feed, a run's stream) read it this turn as the
   * string it came as; later readers decode it (a frame's bytes are made once per event, for
   * every subscriber). Issue 87: a log keeps its run's event texts for seconds after its end,
   * ~10–14 KB a LangGraph echo run, every string of them copied by two of the main thread's
   * scavenges.
   */
  private packSoon(text: JsonText): void {
    this.packing.add(text);
  }

  /** Closes a run's log with the final `end` event. */
  async end(runId: string): Promise<void> {
    const log = this.logs.get(runId);
    if (!log || log.ended) return;
    log.push('end', null);
    log.end();
    log.compact();
    this.keepResultSoon(log);
    const bytes = log.bytes();
    this.finished.push({ runId, bytes, at: performance.now() });
    this.finishedBytes += bytes;
    // the newest log stays whatever its size: its run's readers are the likeliest
    while (this.finished.length > this.keepFinished || (this.finished.length > 1 && this.finishedBytes > this.keepFinishedBytes)) {
      const oldest = this.finished.shift()!;
      this.finishedBytes -= oldest.bytes;
      this.forget(oldest.runId);
    }
    this.budget?.grown();
  }

  /**
   * Drops the finished logs that ended `unusedForMs` ago or more, the newest too: what an idle
   * server gives back (runtime/idle/idleCollector.ts); a later reader is answered from the store,
   * as one of a log dropped by count. The bytes dropped (EventLog.bytes).
   */
  releaseFinished(unusedForMs: number): number {
    const before = this.finishedBytes;
    const since = performance.now() - unusedForMs;
    while (this.finished.length > 0 && this.finished[0]!.at <= since) {
      const oldest = this.finished.shift()!;
      this.finishedBytes -= oldest.bytes;
      this.forget(oldest.runId);
    }
    return before - this.finishedBytes;
  }

  setResult(runId: string, result: unknown): void {
    const log = this.logs.get(runId);
    if (!log) return;
    log.result = result;
    log.resultBytes = undefined;
    this.keepResultSoon(log);
  }

  async result(runId: string): Promise<unknown> {
    const log = this.logs.get(runId);
    if (!log) return undefined;
    if (log.resultBytes) return resultOfBytes(log.resultBytes);
    // read by a reader that waited for the end (a join): the others of this turn read it as objects too
    if (log.awaited) {
      log.awaited = false;
      this.keepResultSoon(log);
    }
    return log.result;
  }

  /**
   * A finished log's answer as bytes (keptResult.ts) at the next turn of the loop; when readers
   * were waiting for its end (a join, a `runs.wait`), once one of them has read it: they read it
   * at once, as objects, not parsed again.
   */
  private keepResultSoon(log: EventLog): void {
    if (!log.ended || log.result === undefined || log.awaited) return;
    this.keeping.add(log);
  }

  /** Resolves when the run's log has ended (or at once when there is no open log). */
  async ended(runId: string, signal?: AbortSignal): Promise<void> {
    const log = this.logs.get(runId);
    if (!log || log.ended) return;
    const stop = untilAborted(signal);
    log.endWaiters += 1;
    try {
      while (!log.ended && !signal?.aborted) await log.nextOr(stop);
    } finally {
      log.endWaiters -= 1;
      stop.release();
    }
  }

  async detach(): Promise<void> {
    // the log stays open: the run's next attempt in this process continues it (after a
    // restart the log is opened again, when the run is recovered)
  }

  async drop(runId: string): Promise<void> {
    this.logs.get(runId)?.end();
    this.forget(runId);
  }

  private forget(runId: string): void {
    this.logs.delete(runId);
    this.owners.delete(runId);
  }

  /**
   * The run's events after `lastEventId` (from the start without one), live until `end`.
   * Yields nothing when the log is unknown; callers synthesise an outcome then.
   */
  async *join(runId: string, options: JoinOptions = {}): AsyncGenerator<RunEvent> {
    const log = this.logs.get(runId);
    if (!log) return;
    const parsed = options.lastEventId === undefined ? -1 : Number(options.lastEventId);
    const after = Number.isInteger(parsed) ? parsed : -1;
    // a live log only grows; once compacted it is replaced, never changed, so this array stays valid
    const events = log.events;
    let index = events.findIndex((e) => Number(e.id) > after);
    if (index < 0) index = events.length;
    const signal = options.signal;
    const stop = untilAborted(signal);
    try {
      while (!signal?.aborted) {
        while (index < events.length) {
          yield events[index];
          index += 1;
          if (signal?.aborted) return;
        }
        if (log.ended || options.present) return;
        await log.nextOr(stop);
      }
    } finally {
      stop.release();
    }
  }
}

/**
 * One abort listener for a reader's whole read, removed when the read ends: it wakes the wait
 * in progress. (A listener per read that was never removed stayed on a subscriber's signal for
 * each run it read, with every wait's race against it: issue 67.)
 */
function untilAborted(signal: AbortSignal | undefined): { wake?: () => void; release(): void } {
  const stop: { wake?: () => void; release(): void } = { release: () => signal?.removeEventListener('abort', onAbort) };
  const onAbort = () => stop.wake?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  return stop;
}
