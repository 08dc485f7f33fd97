// Runs: create (with the multitask strategies), read, list, wait, cancel, and their events.
// Statuses change only in the run lifecycle; this service decides what to ask of it.
import type { Run, RunCreate, RunResult } from '../../../generated/agent-server/types.gen.ts';
import type { Collection } from '../../runtime/store/types.ts';
import type { KeyedLock } from '../keyedLock.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import type { AssistantRegistry } from './assistants.ts';
import type { RunBroker } from './broker.ts';
import { nowIso } from './ids.ts';
import { FINAL_STATUSES, errorResult, toApiRun, type RunRecord, type ThreadRecord } from './records.ts';
import type { RunLifecycle } from './runLifecycle.ts';
import type { RunEvent, RunService } from './service.ts';
import type { ThreadStateReader } from './threadState.ts';
import { threadNotFound } from './threads.ts';

export interface RunDeps {
  runs: Collection<RunRecord>;
  threads: Collection<ThreadRecord>;
  assistants: AssistantRegistry;
  lifecycle: RunLifecycle;
  broker: RunBroker;
  stateReader: ThreadStateReader;
  /** Per-thread lock, shared with the thread service. */
  locks: KeyedLock;
}

export const THREAD_BUSY = 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.';

const runNotFound = (runId: string) => fail('not_found', `Run ${runId} not found`);

export class Runs implements RunService {
  constructor(private readonly deps: RunDeps) {}

  async create(threadId: string, body: RunCreate): Promise<Outcome<Run, 'not_found' | 'busy'>> {
    const { lifecycle } = this.deps;
    // receipt order is fixed here, before any await: the lock chains calls in arrival order
    return this.deps.locks.run(threadId, async () => {
      const assistant = await this.deps.assistants.resolve(body.assistant_id);
      const thread = await this.deps.threads.get(threadId);
      if (!assistant || (!thread && body.if_not_exists !== 'create')) return fail('not_found', 'Thread or assistant not found.');
      const strategy = body.multitask_strategy ?? 'enqueue';
      const inflight = lifecycle.inflight(threadId);
      if (inflight.length > 0 && strategy === 'reject') return fail('busy', THREAD_BUSY);
      if (inflight.length > 0 && (strategy === 'interrupt' || strategy === 'rollback')) {
        for (const runId of inflight) await lifecycle.cancel(threadId, runId, strategy);
      }
      return ok(toApiRun(await lifecycle.enqueue(threadId, assistant, body)));
    });
  }

  async get(threadId: string, runId: string): Promise<Outcome<Run, 'not_found'>> {
    const run = await this.deps.runs.get(runId);
    return run && run.thread_id === threadId ? ok(toApiRun(run)) : runNotFound(runId);
  }

  async list(threadId: string, query: { limit?: number; offset?: number; status?: string }): Promise<Outcome<Run[], 'not_found'>> {
    if (!(await this.deps.threads.get(threadId))) return threadNotFound(threadId);
    const runs = await this.deps.runs.list({ where: { thread_id: threadId, ...(query.status ? { status: query.status } : {}) } });
    runs.sort((a, b) => (a.run_id < b.run_id ? 1 : -1));
    const offset = query.offset ?? 0;
    return ok(runs.slice(offset, offset + (query.limit ?? 10)).map(toApiRun));
  }

  async wait(threadId: string, runId: string, signal?: AbortSignal): Promise<Outcome<Run, 'not_found'>> {
    const before = await this.deps.runs.get(runId);
    if (!before || before.thread_id !== threadId) return runNotFound(runId);
    if (!FINAL_STATUSES.has(before.status)) await this.deps.broker.ended(runId, signal);
    const after = await this.deps.runs.get(runId);
    // a rolled-back run is deleted: report it as interrupted
    return ok(toApiRun(after ?? { ...before, status: 'interrupted', updated_at: nowIso() }));
  }

  async result(threadId: string, runId: string): Promise<RunResult> {
    const kept = this.deps.broker.result(runId);
    if (kept !== undefined) return kept as RunResult;
    const run = await this.deps.runs.get(runId);
    if (run?.status === 'error' && run.error) return errorResult(run.error);
    const thread = await this.deps.threads.get(threadId);
    return (thread && (await this.deps.stateReader.values(thread))) ?? {};
  }

  async cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback' = 'interrupt'): Promise<Outcome<Run, 'not_found' | 'conflict'>> {
    const outcome = await this.deps.lifecycle.cancel(threadId, runId, action);
    return outcome.ok ? ok(toApiRun(outcome.value)) : outcome;
  }

  async *events(runId: string, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncIterable<RunEvent> {
    if (this.deps.broker.has(runId)) {
      yield* this.deps.broker.join(runId, options);
      return;
    }
    // the log is gone (the run ended long ago): answer with its outcome
    const run = await this.deps.runs.get(runId);
    if (!run) return;
    const result = await this.result(run.thread_id, runId);
    yield { id: '0', event: 'metadata', data: { run_id: runId, attempt: run.attempt } };
    if (run.status === 'error' && run.error) yield { id: '1', event: 'error', data: run.error };
    else yield { id: '1', event: 'values', data: result };
    yield { id: '2', event: 'end', data: null };
  }
}
