// The run engine over the in-process claims, with a store in memory and a scripted executor
// (no server, no graph): the queue's order and limit, a graceful stop, and a run whose events
// could not be kept. The same engine drives PostgreSQL's claims (test/agent-server/replicas,
// pg-restart).
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Assistant } from '../../../../generated/agent-server/types.gen.ts';
import { InProcessRunClaims } from '../../../../src/adapters/run-storage/inProcessRunClaims.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { PlainStateStore } from '../../../../src/domain/agent/checkpoints/plainState.ts';
import { CollectionPlainCheckpoints } from '../../../../src/adapters/embedded/collectionPlainCheckpoints.ts';
import type { RunRecord, ThreadRecord } from '../../../../src/domain/agent/records.ts';
import type { RunExecutor } from '../../../../src/domain/agent/graphs/runContext.ts';
import { RunEngine } from '../../../../src/domain/agent/runs/runEngine.ts';
import { enqueueRun } from '../../../../src/domain/agent/runs/runWrites.ts';
import type { Logger } from '../../../../src/runtime/logging/logger.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { CollectionThreads } from '../../../../src/adapters/embedded/collectionThreads.ts';
import type { Collection, Store } from '../../../../src/domain/ports/store.ts';
import type { Claim, RunClaims, RunStart } from '../../../../src/domain/ports/runClaims.ts';

const assistant = { assistant_id: 'a1', graph_id: 'g', config: {}, context: {}, metadata: {} } as unknown as Assistant;
const done = { values: {}, next: [], interrupts: {}, ops: [] };

function recordingLog(lines: { msg: string; fields?: Record<string, unknown> }[]): Logger {
  const log = (msg: string, fields?: Record<string, unknown>) => void lines.push({ msg, fields });
  const logger: Logger = { debug: log, info: log, warn: log, error: log, routine: log, child: () => logger, enabled: () => true } as unknown as Logger;
  return logger;
}

/** Resolves once `signal` aborts, rejecting as an aborted graph does. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

async function engine(
  execute: RunExecutor,
  options: {
    maxConcurrentRuns?: number;
    eventLog?: InMemoryRunEventLog;
    claims?: (runs: Collection<RunRecord>, store: Store, eventLog: InMemoryRunEventLog) => RunClaims;
    leaseMs?: number;
    onThreadDiscarded?: (threadId: string) => void;
  } = {},
) {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const threads = store.collection<ThreadRecord>('threads', { indexes: ['status'] });
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const eventLog = options.eventLog ?? new InMemoryRunEventLog();
  const claims = options.claims?.(runs, store, eventLog) ?? new InProcessRunClaims(runs, store, eventLog);
  const engine = new RunEngine({
    records: new CollectionRunStore(store),
    eventLog,
    claims,
    leaseMs: options.leaseMs ?? 30_000,
    plain: new PlainStateStore(new CollectionPlainCheckpoints(store)),
    checkpointer: new StoreCheckpointer(new CollectionCheckpoints(store)),
    // these graphs keep no state a run's end would store on its thread
    threadValues: async (thread) => thread.values ?? null,
    execute,
    log: recordingLog(lines),
    maxConcurrentRuns: options.maxConcurrentRuns ?? 4,
    retryMs: 1,
    onThreadDiscarded: options.onThreadDiscarded,
  });
  await engine.recover();
  engine.start();
  const enqueue = (threadId: string, body: Record<string, unknown> = {}, temporary = false) =>
    enqueueRun(
      { runs: new CollectionRunStore(store), threads: new CollectionThreads(store), eventLog, claims, engine },
      threadId,
      assistant,
      { assistant_id: 'a1', ...body },
      { owner: '', temporary },
    );
  return { store, runs, threads, eventLog, engine, lines, enqueue };
}

describe('run engine (in process)', () => {
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  it('runs one run at a time per thread in receipt order, threads side by side up to the limit', async () => {
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const gates = new Map<string, () => void>();
    const execute: RunExecutor = async (run) => {
      started.push(`${run.thread_id}:${String((run.kwargs.input as { n: number }).n)}`);
      most = Math.max(most, (running += 1));
      await new Promise<void>((resolve) => gates.set(run.run_id, resolve));
      running -= 1;
      return done;
    };
    const e = await engine(execute, { maxConcurrentRuns: 2 });
    stops.push(() => e.engine.stop());
    const queued: RunRecord[] = [];
    for (let n = 0; n < 3; n += 1) for (const thread of ['t1', 't2', 't3']) queued.push(await e.enqueue(thread, { input: { n } }));
    // release whatever runs, until all have run
    while (started.length < queued.length || gates.size > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const [runId, open] of gates) {
        gates.delete(runId);
        open();
      }
    }
    for (const run of queued) await e.eventLog.ended(run.run_id);
    assert.ok(most <= 2, `at most 2 at once, saw ${most}`);
    for (const thread of ['t1', 't2', 't3'])
      assert.deepEqual(
        started.filter((s) => s.startsWith(thread)),
        [0, 1, 2].map((n) => `${thread}:${n}`),
      );
    for (const run of queued) assert.equal((await e.runs.get(run.run_id))?.status, 'success');
    assert.equal((await e.threads.get('t1'))?.status, 'idle');
  });

  it("tells of each thread it deletes (the worker pool forgets it): a stateless run's own once the run ended, and one deleted", async () => {
    const discarded: string[] = [];
    const e = await engine(async () => done, { onThreadDiscarded: (threadId) => discarded.push(threadId) });
    stops.push(() => e.engine.stop());
    const stateless = await e.enqueue('own', {}, true);
    const kept = await e.enqueue('kept');
    for (const run of [stateless, kept]) await e.eventLog.ended(run.run_id);
    assert.deepEqual(discarded, ['own'], "the stateless run's thread, not the other");
    await e.engine.discard('kept');
    assert.deepEqual(discarded, ['own', 'kept']);
  });

  it('a graceful stop hands the run in flight back as the next attempt', async () => {
    let began!: () => void;
    const executing = new Promise<void>((resolve) => (began = resolve));
    const e = await engine(async (_run, signal) => {
      began();
      return untilAborted(signal);
    });
    const run = await e.enqueue('t1');
    await executing;
    await e.engine.stop();
    const stored = await e.runs.get(run.run_id);
    assert.equal(stored?.status, 'pending');
    assert.equal(stored?.attempt, 2);
    assert.ok(e.lines.some((l) => l.msg === 'the platform interrupted the run; starting it again' && l.fields?.attempt === 2));
  });

  it('a run whose events could not be kept starts again as attempt 2 and succeeds', async () => {
    /** The first attempt's log fails its readers once the run has begun. */
    class LosingLog extends InMemoryRunEventLog {
      losses = 0;
      override async begin(runId: string, lost: (error: unknown) => void, attempt: number): Promise<void> {
        await super.begin(runId, lost, attempt);
        if (this.losses++ === 0) setImmediate(() => lost(new Error('could not store run events')));
      }
    }
    const eventLog = new LosingLog();
    const attempts: number[] = [];
    const e = await engine(
      async (run, signal) => {
        attempts.push(run.attempt);
        if (run.attempt === 1) return untilAborted(signal);
        return { ...done, values: { answer: 42 } };
      },
      { eventLog },
    );
    stops.push(() => e.engine.stop());
    const run = await e.enqueue('t1');
    await eventLog.ended(run.run_id);
    const stored = await e.runs.get(run.run_id);
    assert.equal(stored?.status, 'success');
    assert.equal(stored?.attempt, 2);
    assert.deepEqual(attempts, [1, 2]);
    const events = [];
    for await (const event of eventLog.join(run.run_id)) events.push(event);
    assert.deepEqual(
      events.filter((ev) => ev.event === 'metadata').map((ev) => (ev.data as { attempt: number }).attempt),
      [1, 2],
    );
    assert.ok(!events.some((ev) => ev.event === 'error'), 'the client is not told of an error');
  });

  it('does not renew a claim still being taken (a database has not committed it yet), so the run is not thought lost', async () => {
    /** Claims that become visible to renewals only a renewal after they are taken, as an uncommitted row. */
    class CommittedLater extends InProcessRunClaims {
      private readonly committed = new Set<string>();
      private renewed!: () => void;
      private readonly renewedOnce = new Promise<void>((resolve) => (this.renewed = resolve));
      override async claim(started: RunStart, room: number, skip?: ReadonlySet<string>, perOwner?: number): Promise<{ claims: Claim[]; due: number | null }> {
        const taken = await super.claim(started, room, skip, perOwner);
        if (taken.claims.length) {
          await this.renewedOnce;
          for (const claim of taken.claims) this.committed.add(claim.run.run_id);
        }
        return taken;
      }
      override async renew(held: Claim[]) {
        this.renewed();
        return { lost: held.filter((c) => !this.committed.has(c.run.run_id)).map((c) => c.run.run_id), cancels: [] };
      }
    }
    const e = await engine(async () => done, { claims: (runs, store, eventLog) => new CommittedLater(runs, store, eventLog), leaseMs: 300 });
    stops.push(() => e.engine.stop());
    const run = await e.enqueue('t1');
    // a timer that holds the process: the engine's own timers do not
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      e.eventLog.ended(run.run_id),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the run never ended')), 10_000))),
    ]);
    clearTimeout(timer);
    assert.equal((await e.runs.get(run.run_id))?.status, 'success');
    assert.ok(!e.lines.some((l) => l.msg.startsWith('another replica took over this run')));
  });
});
