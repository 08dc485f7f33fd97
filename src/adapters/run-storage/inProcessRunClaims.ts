// The run queue of a server alone on its store (the embedded store): the one server holds
// every claim, so the queue is a line of run ids per thread in process memory, ordered by run
// id (uuid7: the order the server received them), beside the run records in the store; the
// lines' next runs are taken by the fair share between owners (domain/agent/runs/runFairShare.ts). The
// records stay the truth: a run is claimed by turning its record from pending to running,
// atomically against a cancel, and the lines are loaded again from the store on a restart.
// Nothing takes a claim over while the process lives; a claim's token still fences its
// outcome, so the engine's rule is the same on both backends.
import { randomUUID } from 'node:crypto';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { RunRecord, ThreadRecord } from '../../domain/agent/records.ts';
import { notBefore, ownerOf } from '../../domain/agent/records.ts';
import { firstInFairOrder } from '../../domain/agent/runs/runFairShare.ts';
import type { Abandoned, Claim, EndState, Recovered, RunClaims, RunStart } from '../../domain/ports/runClaims.ts';
import type { RunEventLog } from '../../domain/ports/runEventLog.ts';
import { copyWith } from '../../domain/copyWith.ts';

interface Waiting {
  runId: string;
  /** Epoch ms before which the run may not start (`after_seconds`). */
  notBefore: number;
}

interface ThreadLine {
  /** Whose runs these are (the thread's owner): slots are shared fairly between owners. */
  owner: string;
  /** By run id, oldest first. */
  pending: Waiting[];
  running: string | null;
  /** The token of the running run's claim. */
  token?: string;
}

export class InProcessRunClaims implements RunClaims {
  readonly leased = false;
  // endState reads memory here: the end reads first, as ever
  readonly endChecksThread = false;
  private readonly lines = new Map<string, ThreadLine>();
  private readonly claimable = new Set<() => void>();
  private readonly cancels = new Set<(runId: string, action: string) => void>();
  private recovered = false;
  private readonly threads: Collection<ThreadRecord>;

  constructor(
    private readonly runs: Collection<RunRecord>,
    private readonly store: Store,
    /** The runs' event logs: a run enqueued has its log opened before its first reader asks. */
    private readonly events: RunEventLog,
  ) {
    this.threads = store.collection<ThreadRecord>('threads');
  }

  async claim(started: RunStart, room: number, skip?: ReadonlySet<string>, perOwner?: number): Promise<{ claims: Claim[]; due: number | null }> {
    const claims: Claim[] = [];
    // the fair order is found once a claim, not once a run taken: taking a line's head leaves
    // the others' turns as they were (an owner's next head already counts the one before it).
    // Found again for each run, a claim of 10 slots among a tenant's 1,000 waiting threads (its
    // runs in flight at their default bound) read and sorted every line 10 times in one turn of
    // the loop, ~2 ms that another tenant's request waited behind (issue 83)
    let order = this.inFairOrder(Date.now(), room - claims.length, skip, perOwner);
    let at = 0;
    while (claims.length < room && at < order.length) {
      const [threadId, line, head] = order[at++]!;
      // changed while an earlier run was being taken: the order is found again
      if (this.lines.get(threadId) !== line || line.running !== null || line.pending[0] !== head) {
        order = this.inFairOrder(Date.now(), room - claims.length, skip, perOwner);
        at = 0;
        continue;
      }
      const claim = await this.take(threadId, line, started);
      if (claim) claims.push(claim);
      else {
        // its run was withdrawn: the line's next run may be claimable now
        order = this.inFairOrder(Date.now(), room - claims.length, skip, perOwner);
        at = 0;
      }
    }
    return { claims, due: this.nextDue() };
  }

  /** Claims the head of `line`; null when it was cancelled or deleted since it was queued (it leaves the line). */
  private async take(threadId: string, line: ThreadLine, started: RunStart): Promise<Claim | null> {
    const head = line.pending.shift()!;
    const token = randomUUID();
    line.running = head.runId;
    line.token = token;
    let took = false;
    const run = await this.runs.update(head.runId, (current) => (current.status === 'pending' ? ((took = true), copyWith(current, started)) : undefined));
    if (took && run) return { run, token };
    line.running = null;
    line.token = undefined;
    this.forgetIfIdle(threadId, line);
    return null;
  }

  async recordEnd(claim: Claim, ops: WriteOp[], release?: RunRecord): Promise<boolean> {
    if (!this.holds(claim)) return false;
    // this process is the only writer of a running run's record: what is read here stays so until the write
    const current = await this.runs.get(claim.run.run_id);
    if (current?.status !== 'running' || current.attempt !== claim.run.attempt || !this.holds(claim)) return false;
    await this.store.write(ops);
    if (release) await this.release(claim, release);
    return true;
  }

  /** Read through the collections, one after another: each read is of memory here. */
  async endState(run: RunRecord): Promise<EndState> {
    const thread = await this.threads.get(run.thread_id);
    return { thread, threadThere: thread !== undefined, run: await this.runs.get(run.run_id) };
  }

  private holds(claim: Claim): boolean {
    const line = this.lines.get(claim.run.thread_id);
    return line?.running === claim.run.run_id && line.token === claim.token;
  }

  /**
   * The run this server will claim on the thread as soon as its running run ends: the oldest
   * pending run, when its `after_seconds` have passed and no other thread's run waits for a
   * claim. The embedded store's own: one server holds every claim here, so run workers may start
   * that run ahead (adapters/run-workers/runsAhead.ts); with replicas sharing the queue any of
   * them may take it, so PostgreSQL has none.
   *
   * Behind other threads' waiting runs the thread's next run takes its turn in the fair order,
   * after them: with 100 threads' runs queued, ~300 ms after its thread's run ended. Started
   * ahead, it was held that long in its worker, finished and counted in the worker's runs, while
   * the worker went without work for a quarter of the round (issue 86, session 47 in
   * scripts/bench/findings.md); so it is not named then.
   */
  async nextOnThread(threadId: string): Promise<RunRecord | null> {
    const now = Date.now();
    const head = this.lines.get(threadId)?.pending[0];
    if (!head || head.notBefore > now || this.othersWaiting(threadId, now)) return null;
    const run = await this.runs.get(head.runId);
    return run?.status === 'pending' ? run : null;
  }

  /** Whether another thread's run waits for a claim now (its thread runs nothing, its after_seconds have passed). */
  private othersWaiting(threadId: string, now: number): boolean {
    for (const [id, line] of this.lines) {
      if (id === threadId || line.running !== null) continue;
      const head = line.pending[0];
      if (head && head.notBefore <= now) return true;
    }
    return false;
  }

  async enqueue(ops: WriteOp[], run: RunRecord, owner: string): Promise<{ woke: boolean }> {
    await this.store.write(ops);
    await this.events.open(run.run_id, owner, run.thread_id);
    // a run behind others on its thread cannot be claimed before their ends, each of which looks
    const line = this.lines.get(run.thread_id);
    const behindOthers = line !== undefined && (line.running !== null || line.pending.length > 0);
    this.line(run.thread_id, run);
    this.wake();
    return { woke: !behindOthers };
  }

  /** The earliest time a run held back by its `after_seconds` may start; the clock read once, not once a waiting thread (every claim asks: issue 86). */
  private nextDue(): number | null {
    const now = Date.now();
    let due: number | null = null;
    for (const line of this.lines.values()) {
      const head = line.pending[0];
      if (line.running === null && head && head.notBefore > now && (due === null || head.notBefore < due)) due = head.notBefore;
    }
    return due;
  }

  async renew(_held: Claim[]): Promise<{ lost: string[]; cancels: { runId: string; action: string }[] }> {
    // no other server can take a claim over, and cancels arrive at once (requestCancel)
    return { lost: [], cancels: [] };
  }

  async release(claim: Claim, run: RunRecord): Promise<void> {
    if (!this.holds(claim)) return;
    const line = this.lines.get(run.thread_id);
    if (line?.running === run.run_id) {
      line.running = null;
      line.token = undefined;
    }
    // a new attempt: the oldest run of its thread, so first in line again
    if (run.status === 'pending') this.line(run.thread_id, run);
    else if (line) this.forgetIfIdle(run.thread_id, line);
    this.wake();
  }

  async requestCancel(runId: string, action: string): Promise<void> {
    for (const cancel of this.cancels) cancel(runId, action);
  }

  /** Once, on start: the runs the previous process left running were abandoned; the pending ones are queued again. */
  async recover(abandoned: Abandoned): Promise<Recovered> {
    if (this.recovered) return { abandoned: [], queued: [] };
    this.recovered = true;
    const changed: RunRecord[] = [];
    for (const run of await this.runs.list({ where: { status: 'running' } })) {
      const next = await this.runs.update(run.run_id, (current) => (current.status === 'running' ? abandoned(current) : undefined));
      if (next) changed.push(next);
    }
    const queued = (await this.runs.list({ where: { status: 'pending' } })).sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0));
    for (const run of queued) this.line(run.thread_id, run);
    return { abandoned: changed, queued };
  }

  onClaimable(wake: () => void): () => void {
    this.claimable.add(wake);
    return () => this.claimable.delete(wake);
  }

  onCancel(cancel: (runId: string, action: string) => void): () => void {
    this.cancels.add(cancel);
    return () => this.cancels.delete(cancel);
  }

  /**
   * The threads whose next runs may start now (nothing running on the thread, its
   * `after_seconds` passed), each with that run, in the order slots go to them: the fair share
   * between owners (runFairShare.ts), oldest first within an owner, none past `perOwner` of an
   * owner's (this server runs every run here, so its runs executing are the owner's): the first
   * `want` of them (the claim's free slots).
   */
  private inFairOrder(now: number, want: number, skip?: ReadonlySet<string>, perOwner?: number): [string, ThreadLine, Waiting][] {
    const heads: { owner: string; runId: string; entry: [string, ThreadLine, Waiting] }[] = [];
    const executing = new Map<string, number>();
    for (const entry of this.lines) {
      const [, line] = entry;
      if (line.running !== null) {
        executing.set(line.owner, (executing.get(line.owner) ?? 0) + 1);
        continue;
      }
      const head = line.pending[0];
      if (!head || head.notBefore > now || skip?.has(head.runId)) continue;
      heads.push({ owner: line.owner, runId: head.runId, entry: [entry[0], line, head] });
    }
    return firstInFairOrder(heads, executing, perOwner, want).map((h) => h.entry);
  }

  /** The thread's line, with `run` in it (in run id order) when given. */
  private line(threadId: string, run?: RunRecord): ThreadLine {
    let line = this.lines.get(threadId);
    if (!line) this.lines.set(threadId, (line = { owner: run ? ownerOf(run) : '', pending: [], running: null }));
    if (run && !line.pending.some((w) => w.runId === run.run_id)) {
      let at = line.pending.length;
      while (at > 0 && line.pending[at - 1].runId > run.run_id) at -= 1;
      line.pending.splice(at, 0, { runId: run.run_id, notBefore: notBefore(run) ?? 0 });
    }
    return line;
  }

  private forgetIfIdle(threadId: string, line: ThreadLine): void {
    if (line.pending.length === 0 && line.running === null) this.lines.delete(threadId);
  }

  private wake(): void {
    for (const wake of this.claimable) wake();
  }
}
