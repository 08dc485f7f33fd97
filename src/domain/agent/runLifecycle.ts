// The run and thread records' side of the run engine: a run is stored pending (and its thread
// busy) here, and deleted here, with its thread or alone. Everything a run goes through between
// (claimed, executed, cancelled, timed out, started again, ended) is the run engine's
// (runEngine.ts), as the run state machine says (runStateMachine.ts):
//
//   thread  (none) → idle                     newThread: created by createThread or by a run
//   run     (none) → pending, thread → busy   enqueue
//   run     any → deleted                     deleteRun (rolled back first when in flight)
//   thread  any → deleted, with its runs      removeThread (runs in flight rolled back first)
import type { Assistant, RunCreate } from '../../../generated/agent-server/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { nowIso } from '../clock.ts';
import { copyWith } from '../copyWith.ts';
import { uuid7 } from './ids.ts';
import type { WriteOp } from '../ports/store.ts';
import { FINAL_STATUSES, runKwargs, type RunRecord, type ThreadRecord } from './records.ts';
import { mergeRunConfig, type RunCaller } from './runConfig.ts';
import { RunEngine, type EngineDeps } from './runEngine.ts';
import type { CancelAction } from './runStateMachine.ts';

export type { RunEnded } from './runEngine.ts';
export type LifecycleDeps = EngineDeps;

export function newThread(threadId: string, metadata: Record<string, unknown>, owner: string): ThreadRecord {
  const now = nowIso();
  return { thread_id: threadId, ...(owner ? { owner } : {}), created_at: now, updated_at: now, metadata, status: 'idle', config: {}, interrupts: {} };
}

export class RunLifecycle {
  private readonly engine: RunEngine;

  constructor(private readonly deps: LifecycleDeps) {
    this.engine = new RunEngine(deps);
  }

  /** How many runs are executing now (metrics). */
  executing(): number {
    return this.engine.executing();
  }

  /** The run claimed on the thread after the one running, when this server alone claims them (RunClaims.nextOnThread). */
  nextOnThread(threadId: string): Promise<RunRecord | null> {
    return this.engine.nextOnThread(threadId);
  }

  /** Run ids queued or running on the thread, the running one first, then the pending ones in receipt order. */
  inflight(threadId: string): Promise<string[]> {
    return this.engine.inflight(threadId);
  }

  /** A pending run ends at once; a running one is asked to stop and its end is recorded when it has. */
  cancel(threadId: string, runId: string, action: CancelAction): Promise<Outcome<RunRecord, 'not_found'>> {
    return this.engine.cancel(threadId, runId, action);
  }

  /** Takes back the runs a previous process (or a replica that is gone) left. */
  recover(): Promise<void> {
    return this.engine.recover();
  }

  start(): void {
    this.engine.start();
  }

  /** Stops taking runs; runs in flight start again, as a new attempt, after a restart. */
  stop(): Promise<void> {
    return this.engine.stop();
  }

  /**
   * Stores a new pending run and marks its thread busy (creating the thread when absent).
   * The run records its assistant and graph, so it executes that graph whatever runs after it.
   * `owner` is the caller's (see ownerOf), who has checked the thread is theirs or absent.
   */
  async enqueue(
    threadId: string,
    assistant: Assistant,
    body: RunCreate,
    /** `thread`: the thread as the caller read it under the thread's lock (null: there is none); read here when absent. */
    options: { temporary?: boolean; owner: string; caller?: RunCaller; thread?: ThreadRecord | null },
  ): Promise<RunRecord> {
    const now = nowIso();
    const { owner } = options;
    const runId = uuid7();
    const existing = options.thread !== undefined ? (options.thread ?? undefined) : await this.deps.threads.get(threadId);
    const ids = { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id };
    // as upstream, a thread the run creates takes the run's metadata: what a custom auth
    // handler stamped there (its owner) is what the thread filters of later reads look for
    const base = existing ?? newThread(threadId, { ...ids, ...(body.metadata ?? {}) }, owner);
    const threadMetadata = existing ? { ...existing.metadata, ...ids } : base.metadata;
    // as upstream: a thread the run creates contributes no metadata to the run's
    const merged = mergeRunConfig(
      assistant,
      existing && { config: existing.config, metadata: threadMetadata },
      body,
      { run_id: runId, thread_id: threadId, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
      options.caller,
    );
    const run: RunRecord = {
      run_id: runId,
      ...(owner ? { owner } : {}),
      thread_id: threadId,
      assistant_id: assistant.assistant_id,
      graph_id: assistant.graph_id,
      created_at: now,
      updated_at: now,
      status: 'pending',
      // the assistant's, the thread's and the request's, as upstream's runs show it
      metadata: merged.metadata,
      // temporary, subgraphs, resumable: the flags upstream's runs show under these names
      kwargs: copyWith(runKwargs(body), {
        config: merged.config,
        context: merged.context,
        temporary: options.temporary === true,
        subgraphs: body.stream_subgraphs ?? false,
        resumable: body.stream_resumable ?? false,
      }),
      multitask_strategy: body.multitask_strategy ?? 'enqueue',
      attempt: 1,
    };
    const thread: ThreadRecord = copyWith(base, {
      status: 'busy' as const,
      updated_at: now,
      metadata: threadMetadata,
      // upstream keeps a busy thread's config as it is (the running run's)
      config: base.status === 'busy' ? base.config : merged.threadConfig,
    });
    const ops: WriteOp[] = [
      { collection: this.deps.threads.name, id: threadId, value: thread },
      { collection: this.deps.runs.name, id: run.run_id, value: run },
    ];
    // the records, the log and the claimers' wake-up in one step where the backend can
    const together = await this.deps.claims.enqueue?.(ops, run, owner);
    if (together) {
      this.engine.queuedTogether(together.woke);
      return run;
    }
    await this.deps.store.write(ops);
    await this.deps.broker.open(run.run_id, owner, threadId);
    // a thread busy already has a run before this one, whose end looks for this one
    await this.engine.queued(run, base.status === 'busy');
    return run;
  }

  /** Rolls back the thread's runs in flight, waits for them to stop, then deletes everything. */
  async removeThread(threadId: string): Promise<void> {
    const inflight = await this.inflight(threadId);
    for (const runId of inflight) await this.cancel(threadId, runId, 'rollback');
    // let a running graph stop before its state is removed, or it could write after us
    for (const runId of inflight) await this.deps.broker.ended(runId);
    await this.engine.discard(threadId);
  }

  /**
   * Deletes a run's record. A run in flight is rolled back first (what it wrote is undone)
   * and waited for; a finished run's checkpoints stay in the thread's history.
   */
  async deleteRun(threadId: string, runId: string): Promise<Outcome<void, 'not_found'>> {
    const run = await this.deps.runs.get(runId);
    if (!run || run.thread_id !== threadId) return fail('not_found', 'Run not found');
    if (!FINAL_STATUSES.has(run.status)) {
      await this.cancel(threadId, runId, 'rollback');
      await this.deps.broker.ended(runId);
    }
    if (await this.deps.runs.get(runId)) await this.deps.store.write([{ collection: this.deps.runs.name, id: runId, delete: true }]);
    await this.deps.broker.drop(runId);
    return ok(undefined);
  }
}
