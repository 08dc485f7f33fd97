// What a request writes of a run, beside the run engine (runEngine.ts), which owns everything
// a run goes through between: a run is stored pending (its thread busy, created when absent),
// or deleted. As the run state machine says (runStateMachine.ts):
//
//   run  (none) → pending, thread → busy   enqueueRun
//   run  any → deleted                     deleteRun (rolled back first when in flight)
import type { Assistant, RunCreate } from '../../../../generated/agent-server/types.gen.ts';
import { fail, ok, type Outcome } from '../../outcome.ts';
import { nowIso } from '../../clock.ts';
import { copyWith } from '../../copyWith.ts';
import type { WriteOp } from '../../ports/store.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { ThreadHead, ThreadsRepository } from '../../ports/threadsRepository.ts';
import type { RunClaims } from '../../ports/runClaims.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { uuid7 } from '../ids.ts';
import { assignInputMessageIds } from './inputMessageIds.ts';
import { FINAL_STATUSES, newThread, runKwargs, type RunRecord, type ThreadRecord } from '../records.ts';
import { mergeRunConfig, type RunCaller } from './runConfig.ts';
import type { RunEngine } from './runEngine.ts';

export interface RunWriteDeps {
  runs: RunStore;
  threads: ThreadsRepository;
  eventLog: RunEventLog;
  claims: RunClaims;
  engine: Pick<RunEngine, 'enqueued' | 'cancel'>;
}

/**
 * Stores a new pending run and marks its thread busy (creating the thread when absent).
 * The run records its assistant and graph, so it executes that graph whatever runs after it.
 * `owner` is the caller's (see ownerOf), who has checked the thread is theirs or absent.
 */
export async function enqueueRun(
  deps: RunWriteDeps,
  threadId: string,
  assistant: Assistant,
  body: RunCreate,
  /** `thread`: the thread as the caller read it under the thread's lock (null: there is none); read here when absent. */
  options: { temporary?: boolean; owner: string; caller?: RunCaller; thread?: ThreadHead | null },
): Promise<RunRecord> {
  const now = nowIso();
  const { owner } = options;
  const runId = uuid7();
  const existing = options.thread !== undefined ? (options.thread ?? undefined) : await deps.threads.get(threadId);
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
  const inputIds = assignInputMessageIds(body.input);
  if (inputIds) run.input_message_ids = inputIds;
  const changed: Partial<ThreadRecord> = { status: 'busy', updated_at: now, metadata: threadMetadata };
  // upstream keeps a busy thread's config as it is (the running run's)
  if (base.status !== 'busy') changed.config = merged.threadConfig;
  // an existing thread gets only these fields, set where it stands when the write applies: a
  // run ending on it meanwhile (it holds no thread lock) writes its values, and they stay
  const threadOp = existing ? deps.threads.setOp(threadId, changed) : deps.threads.putOp(copyWith(base, changed) as ThreadRecord);
  const ops: WriteOp[] = [threadOp, deps.runs.putRun(run)];
  // the records, the log and the claimers' wake-up in one step where the backend can
  const { woke } = await deps.claims.enqueue(ops, run, owner);
  deps.engine.enqueued(woke);
  return run;
}

/**
 * Deletes a run's record. A run in flight is rolled back first (what it wrote is undone)
 * and waited for; a finished run's checkpoints stay in the thread's history.
 */
export async function deleteRun(deps: RunWriteDeps, threadId: string, runId: string): Promise<Outcome<void, 'not_found'>> {
  const run = await deps.runs.get(runId);
  if (!run || run.thread_id !== threadId) return fail('not_found', 'Run not found');
  if (!FINAL_STATUSES.has(run.status)) {
    await deps.engine.cancel(threadId, runId, 'rollback');
    await deps.eventLog.ended(runId);
  }
  if (await deps.runs.get(runId)) await deps.runs.delete(runId);
  await deps.eventLog.drop(runId);
  return ok(undefined);
}
