// The run queue: runs on one thread execute one at a time in the order they were queued;
// threads run concurrently up to a limit. Workers are woken by enqueue and by the end of a
// run — no polling. The queue holds only ids; run records live in the store, which is what
// makes pending runs survive a restart (the service re-queues them on start).

export interface QueuedRun {
  runId: string;
  threadId: string;
  /** Epoch ms before which the run may not start (`after_seconds`). */
  notBefore?: number;
}

interface ThreadLine {
  pending: QueuedRun[];
  running: string | null;
  scheduled: boolean;
}

export class RunQueue {
  private readonly lines = new Map<string, ThreadLine>();
  private readonly ready: string[] = [];
  private readonly active = new Set<Promise<void>>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly limit: number,
    private readonly execute: (run: QueuedRun) => Promise<void>,
  ) {}

  start(): void {
    this.started = true;
    this.pump();
  }

  enqueue(run: QueuedRun): void {
    const line = this.line(run.threadId);
    line.pending.push(run);
    this.markReady(run.threadId, line);
    this.pump();
  }

  /** Queues a run that is being started again ahead of its thread's others: it was received first. */
  enqueueFirst(run: QueuedRun): void {
    const line = this.line(run.threadId);
    line.pending.unshift(run);
    this.markReady(run.threadId, line);
    this.pump();
  }

  /** Removes a run that has not started; false when it is not pending here. */
  remove(threadId: string, runId: string): boolean {
    const line = this.lines.get(threadId);
    if (!line) return false;
    const at = line.pending.findIndex((r) => r.runId === runId);
    if (at < 0) return false;
    line.pending.splice(at, 1);
    this.forgetIfIdle(threadId, line);
    return true;
  }

  /** Stops starting runs and waits for the ones in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.active]);
  }

  private line(threadId: string): ThreadLine {
    let line = this.lines.get(threadId);
    if (!line) this.lines.set(threadId, (line = { pending: [], running: null, scheduled: false }));
    return line;
  }

  private markReady(threadId: string, line: ThreadLine): void {
    if (line.running === null && !line.scheduled && line.pending.length > 0) {
      line.scheduled = true;
      this.ready.push(threadId);
    }
  }

  private forgetIfIdle(threadId: string, line: ThreadLine): void {
    if (line.pending.length === 0 && line.running === null && !line.scheduled) this.lines.delete(threadId);
  }

  private pump(): void {
    if (!this.started || this.stopped) return;
    while (this.active.size < this.limit && this.ready.length > 0) {
      const threadId = this.ready.shift()!;
      const line = this.lines.get(threadId);
      if (!line) continue;
      line.scheduled = false;
      const head = line.pending[0];
      if (!head || line.running !== null) {
        this.forgetIfIdle(threadId, line);
        continue;
      }
      const wait = (head.notBefore ?? 0) - Date.now();
      if (wait > 0) {
        line.scheduled = true;
        setTimeout(() => {
          line.scheduled = false;
          this.markReady(threadId, line);
          this.pump();
        }, wait).unref();
        continue;
      }
      line.pending.shift();
      line.running = head.runId;
      const task: Promise<void> = this.execute(head)
        .catch(() => undefined)
        .finally(() => {
          this.active.delete(task);
          line.running = null;
          this.markReady(threadId, line);
          this.forgetIfIdle(threadId, line);
          this.pump();
        });
      this.active.add(task);
    }
  }
}
