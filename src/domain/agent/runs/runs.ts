// Runs: create (with the multitask strategies), read, list, wait, cancel, and their events.
// Statuses change only in the run engine (runEngine.ts); this service decides what to ask of
// it, and stores and deletes runs (runWrites.ts). A Runs
// serves one owner (see ownerOf): another owner's runs, threads and assistants are answered
// as missing ones.
import type { Assistant, AssistantRunMetrics, Run, RunCreate, RunResult, RunsCancelRequest, TraceSpan } from '../../../../generated/agent-server/types.gen.ts';
import type { Locks } from '../../keyedLock.ts';
import { fail, ok, type FailureKind, type Outcome } from '../../outcome.ts';
import { createWithin, type TenantQuotas } from '../../tenantQuotas.ts';
import { nowIso } from '../../clock.ts';
import { uuid4 } from '../ids.ts';
import { FINAL_STATUSES, errorResult, ownerOf, toApiRun, type RunRecord, type ThreadRecord } from '../records.ts';
import type { RunEngine } from './runEngine.ts';
import { deleteRun, enqueueRun, type RunWriteDeps } from './runWrites.ts';
import { admit, admitsBlind } from './runStateMachine.ts';
import { assistantRunMetrics } from './assistantRunMetrics.ts';
import type { RunCaller } from './runConfig.ts';
import type { AssistantService, RunEvent, RunService } from '../service.ts';
import type { ThreadStateReader } from '../threads/threadState.ts';
import { threadNotFound } from '../threads/threads.ts';
import { threadEvents, type ThreadStreamMode } from '../threads/threadStream.ts';

export interface RunDeps extends RunWriteDeps {
  /** The assistants the owner may run. */
  assistants: Pick<AssistantService, 'resolve'>;
  engine: RunEngine;
  stateReader: ThreadStateReader;
  /** Per-thread lock, shared with the thread service. */
  locks: Locks;
  /** How many runs a tenant may have in flight (domain/tenantQuotas.ts); unbounded when absent. */
  quotas?: Partial<TenantQuotas>;
}

/** Whether a stateless run's thread stays once the run has ended (`on_completion: keep`). */
const keepsThread = (body: RunCreate) => (body.on_completion ?? 'delete') !== 'delete';

/**
 * The JS SDK's `createBatch` sends each payload with its own camelCase keys (`streamMode`,
 * `onCompletion`, ...); the upstream servers ignore those. Taking them as their snake_case
 * names is what its users mean (documented in docs/agent-server.md).
 */
function snakeCaseKeys(body: RunCreate): RunCreate {
  const out: Record<string, unknown> = { ...body };
  for (const [key, value] of Object.entries(body)) {
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake !== key && out[snake] === undefined) {
      out[snake] = value;
      delete out[key];
    }
  }
  return out as RunCreate;
}

export const THREAD_BUSY = 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.';

// the upstream JS server's wording
const runNotFound = () => fail('not_found', 'Run not found');
const assistantNotFound = (assistantId: string) =>
  fail('not_found', `No assistant found for "${assistantId}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`);

export class Runs implements RunService {
  constructor(
    private readonly deps: RunDeps,
    /** Whose runs these are (see ownerOf). */
    private readonly owner: string,
    /** Who asks for the runs created here (stamped on their configurable); none for crons. */
    private readonly caller?: RunCaller,
  ) {}

  private readonly mine = (record: { owner?: string }) => ownerOf(record) === this.owner;

  /** The thread when it exists and is this owner's. */
  private async thread(threadId: string): Promise<ThreadRecord | undefined> {
    const record = await this.deps.threads.get(threadId);
    return record && this.mine(record) ? record : undefined;
  }

  /** The run when it exists on this thread and is this owner's. */
  private async run(threadId: string, runId: string): Promise<RunRecord | undefined> {
    const record = await this.deps.runs.get(runId);
    return record && record.thread_id === threadId && this.mine(record) ? record : undefined;
  }

  async create(threadId: string, body: RunCreate): Promise<Outcome<Run, 'not_found' | 'busy' | 'quota_exceeded'>> {
    const { engine } = this.deps;
    // receipt order is fixed here, before any await: the lock chains calls in arrival order
    return this.deps.locks.run(threadId, async () => {
      // side by side: a store that can reads both in one round trip (PostgreSQL: one statement);
      // the thread without its values, which a run's creation never reads
      const [assistant, thread] = await Promise.all([this.deps.assistants.resolve(body.assistant_id), this.deps.threads.withoutValues(threadId)]);
      // another owner's thread is not found, and its id cannot be taken by if_not_exists
      if (!assistant) return assistantNotFound(body.assistant_id);
      if ((thread && !this.mine(thread)) || (!thread && body.if_not_exists !== 'create')) return fail('not_found', 'Thread or assistant not found.');
      const strategy = body.multitask_strategy ?? 'enqueue';
      // an enqueued run is admitted whatever runs before it: no read of the thread's runs (two statements on PostgreSQL)
      const inflight = admitsBlind(strategy) ? [] : await engine.inflight(threadId);
      const admission = admit(strategy, inflight.length);
      if (admission.kind === 'reject') return fail('busy', THREAD_BUSY);
      if (admission.kind === 'cancelFirst') for (const runId of inflight) await engine.cancel(threadId, runId, admission.action);
      // the thread as read above, under the thread's lock, is read again only when a cancel may have changed it
      const known = admission.kind === 'cancelFirst' ? {} : { thread: thread ?? null };
      const enqueue = async (): Promise<Outcome<Run, 'quota_exceeded'>> =>
        ok(toApiRun(await enqueueRun(this.deps, threadId, assistant, body, { owner: this.owner, caller: this.caller, ...known })));
      // a run that creates its thread (if_not_exists) creates one of the owner's threads: held to that quota too
      return this.withinQuota(1, () => this.withinThreadQuota(thread ? 0 : 1, enqueue));
    });
  }

  /**
   * `create` (of `count` runs of this owner) done only while they fit its quota of runs in
   * flight: counted, and created, one creation of the owner's at a time.
   */
  private withinQuota<T, K extends FailureKind>(count: number, create: () => Promise<Outcome<T, K>>): Promise<Outcome<T, K | 'quota_exceeded'>> {
    const held = async () => (await this.deps.runs.countInFlight(this.owner)) + count - 1;
    return createWithin('runsInFlight', this.owner, this.deps.quotas ?? {}, this.deps.locks, held, create);
  }

  /** `create` (of runs that leave `adds` threads of this owner behind) done only while they fit its quota of threads. */
  private withinThreadQuota<T, K extends FailureKind>(adds: number, create: () => Promise<Outcome<T, K>>): Promise<Outcome<T, K | 'quota_exceeded'>> {
    if (adds === 0) return create();
    const held = async () => (await this.deps.threads.count({ owner: this.owner })) + adds - 1;
    return createWithin('threads', this.owner, this.deps.quotas ?? {}, this.deps.locks, held, create);
  }

  /** A run on a new thread of its own, deleted when the run ends unless `on_completion` is `keep`. */
  async createStateless(body: RunCreate): Promise<Outcome<Run, 'not_found' | 'quota_exceeded'>> {
    const assistant = await this.deps.assistants.resolve(body.assistant_id);
    if (!assistant) return assistantNotFound(body.assistant_id);
    const create = async (): Promise<Outcome<Run, 'quota_exceeded'>> => ok(await this.enqueueStateless(assistant, body));
    return this.withinQuota(1, () => this.withinThreadQuota(keepsThread(body) ? 1 : 0, create));
  }

  /** Several stateless runs; every assistant is checked before any run is created. */
  async createBatch(bodies: RunCreate[]): Promise<Outcome<Run[], 'not_found' | 'quota_exceeded'>> {
    const assistants: Assistant[] = [];
    bodies = bodies.map(snakeCaseKeys);
    for (const body of bodies) {
      const assistant = await this.deps.assistants.resolve(body.assistant_id);
      if (!assistant) return assistantNotFound(body.assistant_id);
      assistants.push(assistant);
    }
    // the batch whole or not at all
    const create = async (): Promise<Outcome<Run[], 'quota_exceeded'>> => {
      const created: Run[] = [];
      for (const [i, body] of bodies.entries()) created.push(await this.enqueueStateless(assistants[i], body));
      return ok(created);
    };
    return this.withinQuota(bodies.length, () => this.withinThreadQuota(bodies.filter(keepsThread).length, create));
  }

  async delete(threadId: string, runId: string): Promise<Outcome<void, 'not_found'>> {
    return this.deps.locks.run(threadId, async () => ((await this.run(threadId, runId)) ? deleteRun(this.deps, threadId, runId) : runNotFound()));
  }

  /**
   * Cancels in bulk: by status (every thread of the owner), by thread (its runs in flight, or
   * the named ones), or by run ids. Every named run must exist, or nothing is cancelled.
   */
  async cancelMany(selection: RunsCancelRequest, action: 'interrupt' | 'rollback' = 'interrupt'): Promise<Outcome<void, 'not_found'>> {
    const { runs, engine } = this.deps;
    let targets: RunRecord[];
    if (selection.status) {
      const threadId = selection.thread_id;
      if (threadId && !(await this.thread(threadId))) return threadNotFound(threadId);
      targets = await runs.withStatus(this.owner, selection.status === 'all' ? ['pending', 'running'] : [selection.status], threadId);
    } else if (selection.run_ids) {
      targets = [];
      for (const runId of selection.run_ids) {
        const run = await runs.get(runId);
        if (!run || !this.mine(run) || (selection.thread_id && run.thread_id !== selection.thread_id)) return runNotFound();
        targets.push(run);
      }
    } else {
      const threadId = selection.thread_id!;
      if (!(await this.thread(threadId))) return threadNotFound(threadId);
      targets = (await Promise.all((await engine.inflight(threadId)).map((runId) => runs.get(runId)))).filter((r): r is RunRecord => !!r);
    }
    for (const run of targets) await engine.cancel(run.thread_id, run.run_id, action);
    return ok(undefined);
  }

  /** Whether the run's events can still be read (its log, or its record, is kept). */
  async streamable(runId: string): Promise<Outcome<void, 'not_found'>> {
    return (await this.readable(runId)) ? ok(undefined) : runNotFound();
  }

  /** Whether the run (its record, or its log once a stateless run's records are gone) is this owner's. */
  private async readable(runId: string): Promise<boolean> {
    const record = await this.deps.runs.get(runId);
    if (record) return this.mine(record);
    return (await this.deps.eventLog.ownerOf(runId)) === this.owner;
  }

  private async enqueueStateless(assistant: Assistant, body: RunCreate): Promise<Run> {
    const temporary = !keepsThread(body);
    // a new thread of its own: nothing to read
    return toApiRun(await enqueueRun(this.deps, uuid4(), assistant, body, { temporary, owner: this.owner, caller: this.caller, thread: null }));
  }

  async get(threadId: string, runId: string): Promise<Outcome<Run, 'not_found'>> {
    // as upstream, which reads the thread too: a missing thread is named as such
    if (!(await this.thread(threadId))) return threadNotFound(threadId);
    const run = await this.run(threadId, runId);
    return run ? ok(toApiRun(run)) : runNotFound();
  }

  async assistantMetrics(assistantId: string, windowS: number): Promise<Outcome<AssistantRunMetrics, 'not_found'>> {
    const assistant = await this.deps.assistants.resolve(assistantId);
    if (!assistant) return assistantNotFound(assistantId);
    const since = new Date(Date.now() - windowS * 1000);
    const summary = await this.deps.runs.summaryOfAssistant({ owner: this.owner, assistantId: assistant.assistant_id, since });
    return ok(assistantRunMetrics(assistant.assistant_id, windowS, summary));
  }

  async trace(threadId: string, runId: string): Promise<Outcome<TraceSpan[], 'not_found'>> {
    if (!(await this.thread(threadId))) return threadNotFound(threadId);
    const run = await this.run(threadId, runId);
    return run ? ok(run.trace ?? []) : runNotFound();
  }

  async list(threadId: string, query: { limit?: number; offset?: number; status?: string }): Promise<Outcome<Run[], 'not_found'>> {
    if (!(await this.thread(threadId))) return threadNotFound(threadId);
    const page = await this.deps.runs.ofThread(threadId, {
      ...(query.status ? { status: query.status } : {}),
      offset: query.offset ?? 0,
      limit: query.limit ?? 10,
    });
    return ok(page.map(toApiRun));
  }

  async wait(threadId: string, runId: string, signal?: AbortSignal): Promise<Outcome<Run, 'not_found'>> {
    const before = await this.run(threadId, runId);
    if (!before) return runNotFound();
    if (!FINAL_STATUSES.has(before.status)) await this.deps.eventLog.ended(runId, signal);
    const after = await this.deps.runs.get(runId);
    // a rolled-back run is deleted: report it as interrupted
    return ok(toApiRun(after ?? { ...before, status: 'interrupted', updated_at: nowIso() }));
  }

  async result(threadId: string, runId: string): Promise<RunResult> {
    if (!(await this.readable(runId))) return {};
    const kept = await this.deps.eventLog.result(runId);
    if (kept !== undefined) return kept as RunResult;
    const run = await this.deps.runs.get(runId);
    if ((run?.status === 'error' || run?.status === 'timeout') && run.error) return errorResult(run.error);
    const thread = await this.thread(threadId);
    return (thread && (await this.deps.stateReader.storedValues(thread))) ?? {};
  }

  async cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback' = 'interrupt'): Promise<Outcome<Run, 'not_found'>> {
    if (!(await this.run(threadId, runId))) return runNotFound();
    const outcome = await this.deps.engine.cancel(threadId, runId, action);
    return outcome.ok ? ok(toApiRun(outcome.value)) : outcome;
  }

  async threadEvents(
    threadId: string,
    options: { modes: ThreadStreamMode[]; lastEventId?: string; signal?: AbortSignal },
  ): Promise<Outcome<AsyncIterable<RunEvent>, 'not_found'>> {
    if (!(await this.thread(threadId))) return threadNotFound(threadId);
    return ok(threadEvents(this.deps, threadId, options));
  }

  async *events(runId: string, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncIterable<RunEvent> {
    if (!(await this.readable(runId))) return;
    if (await this.deps.eventLog.has(runId)) {
      yield* this.deps.eventLog.join(runId, options);
      return;
    }
    // the log is gone (the run ended long ago): answer with its outcome
    const run = await this.deps.runs.get(runId);
    if (!run) return;
    const result = await this.result(run.thread_id, runId);
    yield { id: '0', event: 'metadata', data: { run_id: runId, attempt: run.attempt } };
    if ((run.status === 'error' || run.status === 'timeout') && run.error) yield { id: '1', event: 'error', data: run.error };
    else yield { id: '1', event: 'values', data: result };
    yield { id: '2', event: 'end', data: null };
  }
}
