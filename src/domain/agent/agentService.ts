// The agent server's domain: assistants, threads, runs and the run queue behind them. The
// HTTP handlers and the A2A methods both go through this object (see service.ts).
import type { Assistant, AssistantSearchRequest, Run, RunCreate, RunResult, Thread, ThreadCountRequest, ThreadCreateRequest, ThreadHistoryRequest, ThreadPatchRequest, ThreadPruneRequest, ThreadSearchRequest, ThreadState, ThreadStateUpdateRequest, ThreadStateUpdateResult, ThreadTtl } from '../../../generated/agent-server/types.gen.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { Collection, Store } from '../../runtime/store/types.ts';
import { AssistantRegistry } from './assistants.ts';
import { RunBroker } from './broker.ts';
import { StoreCheckpointer } from './checkpointer.ts';
import type { GraphRegistry } from './graphs.ts';
import { nowIso, uuid4, uuid7 } from './ids.ts';
import { PlainStateStore } from './plainState.ts';
import { FINAL_STATUSES, errorResult, newThread, notBefore, runKwargs, toApiRun, toApiThread, type RunRecord, type ThreadRecord, type ThreadTtlSetting } from './records.ts';
import { ThreadCheckpoints } from './threadCheckpoints.ts';
import { executeRun, type ActiveRun } from './runLifecycle.ts';
import { RunQueue } from './runQueue.ts';
import { containsAll, sortBy } from './search.ts';
import type { AgentService, Outcome, RunEvent } from './service.ts';
import { ThreadStateReader } from './threadState.ts';
import { recoverRuns } from './recovery.ts';

export interface AgentDomainOptions {
  store: Store;
  graphs: GraphRegistry;
  checkpointer: StoreCheckpointer;
  log: Logger;
  maxConcurrentRuns: number;
}

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const fail = <T>(status: 400 | 404 | 409 | 422, detail: string): Outcome<T> => ({ ok: false, failure: { status, detail } });

export const THREAD_BUSY = 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.';

export class AgentDomain implements AgentService {
  readonly assistants: AssistantRegistry;
  readonly broker = new RunBroker();
  private readonly threads: Collection<ThreadRecord>;
  private readonly runs: Collection<RunRecord>;
  private readonly plain: PlainStateStore;
  private readonly stateReader: ThreadStateReader;
  readonly checkpoints: ThreadCheckpoints;
  private readonly active = new Map<string, ActiveRun>();
  private readonly queue: RunQueue;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly options: AgentDomainOptions) {
    const { store, graphs, log } = options;
    this.threads = store.collection<ThreadRecord>('threads', { indexes: ['status'] });
    this.runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    this.plain = new PlainStateStore(store);
    this.stateReader = new ThreadStateReader(graphs, this.plain);
    this.checkpoints = new ThreadCheckpoints(store, graphs, this.plain, options.checkpointer);
    this.assistants = new AssistantRegistry(store, () => graphs.ids());
    const deps = { store, runs: this.runs, threads: this.threads, graphs, broker: this.broker, plain: this.plain, checkpointer: options.checkpointer, queue: () => this.queue, active: this.active, log };
    this.queue = new RunQueue(options.maxConcurrentRuns, (run) => executeRun(deps, run));
  }

  /** Registers the system assistants and queues again the runs a previous process left. */
  async prepare(): Promise<void> {
    await this.assistants.registerSystemAssistants();
    const queued = await recoverRuns({ runs: this.runs, threads: this.threads, store: this.options.store, log: this.options.log });
    for (const run of queued) {
      this.broker.open(run.run_id);
      this.queue.enqueue({ runId: run.run_id, threadId: run.thread_id, notBefore: notBefore(run) });
    }
  }

  startWorkers(): void {
    this.queue.start();
  }

  /** Stops taking runs; runs in flight are put back to pending and resume after a restart. */
  async stop(): Promise<void> {
    for (const active of this.active.values()) {
      active.action = 'shutdown';
      active.controller.abort();
    }
    // a graph that ignores its abort signal must not hold the shutdown forever; its run
    // then stays `running` in the store and is treated like a crash on the next start
    await Promise.race([this.queue.stop(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  }

  // ---- assistants
  resolveAssistant(idOrGraph: string): Promise<Assistant | undefined> {
    return this.assistants.resolve(idOrGraph);
  }

  assistantHasMessages(assistant: Assistant): boolean {
    return this.options.graphs.hasMessages(assistant.graph_id);
  }

  searchAssistants(query?: AssistantSearchRequest): Promise<Assistant[]> {
    return this.assistants.search(query);
  }

  // ---- threads
  async createThread(body: ThreadCreateRequest = {}): Promise<Outcome<Thread>> {
    const threadId = body.thread_id ?? uuid4();
    return this.withLock(threadId, async () => {
      const existing = await this.threads.get(threadId);
      if (existing) {
        return body.if_exists === 'do_nothing' ? ok(toApiThread(existing, await this.stateReader.values(existing))) : fail<Thread>(409, 'Thread already exists');
      }
      const record: ThreadRecord = { ...newThread(threadId, (body.metadata as Record<string, unknown>) ?? {}), ...ttlSetting(body.ttl) };
      await this.threads.insert(threadId, record);
      if (body.supersteps?.length) {
        const applied = await this.checkpoints.applySupersteps(record, body.supersteps);
        if (applied && !applied.ok) {
          // the thread is created with its supersteps or not at all
          await this.options.store.write([...(await this.plain.deleteOps(threadId)), { collection: this.threads.name, id: threadId, delete: true }]);
          await this.options.checkpointer.deleteThread(threadId);
          return fail<Thread>(400, applied.detail);
        }
      }
      return ok(toApiThread(record, await this.stateReader.values(record)));
    });
  }

  async getThread(threadId: string, include: { ttl?: boolean } = {}): Promise<Thread | undefined> {
    const record = await this.threads.get(threadId);
    return record && toApiThread(record, await this.stateReader.values(record), include);
  }

  /** Merges metadata, sets the expiry; undefined when the thread does not exist. */
  async patchThread(threadId: string, body: ThreadPatchRequest): Promise<Thread | undefined> {
    return this.withLock(threadId, async () => {
      const now = nowIso();
      const updated = await this.threads.update(threadId, (t) => ({
        ...t,
        metadata: { ...t.metadata, ...((body.metadata as Record<string, unknown>) ?? {}) },
        ...ttlSetting(body.ttl),
        updated_at: now,
      }));
      return updated && toApiThread(updated, await this.stateReader.values(updated));
    });
  }

  async countThreads(query: ThreadCountRequest = {}): Promise<number> {
    const filter = (t: ThreadRecord) => !query.metadata || containsAll(t.metadata, query.metadata as Record<string, unknown>);
    const where = query.status ? { status: query.status } : undefined;
    if (!query.values) return this.threads.count({ where, filter });
    let count = 0;
    for (const t of await this.threads.list({ where, filter })) if (containsAll(await this.stateReader.values(t), query.values as Record<string, unknown>)) count += 1;
    return count;
  }

  /** A new idle thread with the same metadata and every checkpoint; runs are not copied. */
  async copyThread(threadId: string): Promise<Thread | undefined> {
    return this.withLock(threadId, async () => {
      const source = await this.threads.get(threadId);
      if (!source) return undefined;
      const copy: ThreadRecord = { ...newThread(uuid4(), source.metadata), config: source.config, interrupts: source.interrupts, ...(source.ttl ? { ttl: source.ttl } : {}) };
      await this.checkpoints.copy(threadId, copy.thread_id);
      await this.threads.insert(copy.thread_id, copy);
      return toApiThread(copy, await this.stateReader.values(copy));
    });
  }

  /** `delete` deletes the threads; `keep_latest` drops all but their latest checkpoint. */
  async pruneThreads(body: ThreadPruneRequest): Promise<number> {
    let pruned = 0;
    for (const threadId of new Set(body.thread_ids)) {
      if (body.strategy === 'keep_latest' ? await this.keepLatest(threadId) : await this.deleteThread(threadId)) pruned += 1;
    }
    return pruned;
  }

  /** Prunes a thread to its latest state; false when it is missing or a run is in flight. */
  async keepLatest(threadId: string): Promise<boolean> {
    return this.withLock(threadId, async () => {
      if (!(await this.threads.get(threadId)) || this.inflight(threadId).length > 0) return false;
      await this.checkpoints.keepLatest(threadId);
      return true;
    });
  }

  async updateThreadState(threadId: string, body: ThreadStateUpdateRequest): Promise<Outcome<ThreadStateUpdateResult>> {
    return this.withLock(threadId, async () => {
      const thread = await this.threads.get(threadId);
      if (!thread) return fail<ThreadStateUpdateResult>(404, `Thread with ID ${threadId} not found`);
      if (this.inflight(threadId).length > 0) return fail<ThreadStateUpdateResult>(409, 'Thread is busy');
      const written = await this.checkpoints.update(thread, body);
      if (!written.ok) return fail<ThreadStateUpdateResult>(written.kind === 'not_found' ? 404 : 400, written.detail);
      await this.threads.update(threadId, (t) => ({ ...t, updated_at: nowIso() }));
      return ok({ checkpoint: written.checkpoint });
    });
  }

  /** Merges metadata into the latest checkpoint: 'missing' thread, 'empty' thread (no checkpoint). */
  async patchThreadState(threadId: string, metadata: Record<string, unknown>): Promise<'ok' | 'missing' | 'empty'> {
    return this.withLock(threadId, async () => {
      const thread = await this.threads.get(threadId);
      if (!thread) return 'missing';
      return (await this.checkpoints.patchLatestMetadata(thread, metadata)) ? 'ok' : 'empty';
    });
  }

  /** States newest first; undefined when the thread does not exist. */
  async getThreadHistory(threadId: string, query: Omit<ThreadHistoryRequest, 'before'> & { before?: string | { checkpoint_id?: string } }): Promise<ThreadState[] | undefined> {
    const thread = await this.threads.get(threadId);
    if (!thread) return undefined;
    const before = typeof query.before === 'string' ? query.before : query.before?.checkpoint_id;
    return this.stateReader.history(thread, {
      limit: query.limit ?? 10,
      ...(before ? { before } : {}),
      ...(query.metadata ? { metadata: query.metadata as Record<string, unknown> } : {}),
      ...(query.checkpoint?.checkpoint_ns ? { checkpointNs: query.checkpoint.checkpoint_ns } : {}),
      ...(query.checkpoint?.checkpoint_id ? { checkpointId: query.checkpoint.checkpoint_id } : {}),
    });
  }

  async searchThreads(query: ThreadSearchRequest = {}): Promise<Thread[]> {
    const ids = query.ids ? new Set(query.ids) : null;
    const filter = (t: ThreadRecord) => (!ids || ids.has(t.thread_id)) && (!query.metadata || containsAll(t.metadata, query.metadata as Record<string, unknown>));
    const where = query.status ? { status: query.status } : undefined;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 10;
    const sortField = query.sort_by === 'state_updated_at' ? 'updated_at' : (query.sort_by ?? 'created_at');
    const order = query.sort_order ?? 'desc';
    let page: ThreadRecord[];
    if (query.values) {
      const all = sortBy(await this.threads.list({ where, filter }), sortField, order);
      const matching: ThreadRecord[] = [];
      for (const t of all) if (containsAll(await this.stateReader.values(t), query.values as Record<string, unknown>)) matching.push(t);
      page = matching.slice(offset, offset + limit);
    } else if (sortField === 'created_at') {
      // the store keeps creation order: page without sorting the whole collection
      page = await this.threads.list({ where, filter, reverse: order === 'desc', offset, limit });
    } else {
      page = sortBy(await this.threads.list({ where, filter }), sortField, order).slice(offset, offset + limit);
    }
    return Promise.all(page.map(async (t) => toApiThread(t, await this.stateReader.values(t))));
  }

  async deleteThread(threadId: string): Promise<boolean> {
    return this.withLock(threadId, async () => {
      if (!(await this.threads.get(threadId))) return false;
      const inflight = this.inflight(threadId);
      for (const runId of inflight) await this.cancelRun(threadId, runId, 'rollback');
      // let a running graph stop before its state is removed, or it could write after us
      for (const runId of inflight) await this.broker.ended(runId);
      const runs = await this.runs.list({ where: { thread_id: threadId } });
      await this.options.store.write([
        ...runs.map((r) => ({ collection: this.runs.name, id: r.run_id, delete: true as const })),
        ...(await this.plain.deleteOps(threadId)),
        { collection: this.threads.name, id: threadId, delete: true },
      ]);
      await this.options.checkpointer.deleteThread(threadId);
      return true;
    });
  }

  async getThreadState(threadId: string, options: { subgraphs?: boolean } = {}): Promise<ThreadState | undefined> {
    const record = await this.threads.get(threadId);
    return (record && (await this.stateReader.state(record, options))) ?? undefined;
  }

  /** The state at a checkpoint: undefined without the thread, null without the checkpoint. */
  async getThreadStateAt(threadId: string, checkpoint: { checkpoint_id?: string; checkpoint_ns?: string }, options: { subgraphs?: boolean } = {}): Promise<ThreadState | null | undefined> {
    const record = await this.threads.get(threadId);
    if (!record) return undefined;
    return this.stateReader.state(record, { ...options, checkpointId: checkpoint.checkpoint_id, checkpointNs: checkpoint.checkpoint_ns });
  }

  // ---- runs
  async createRun(threadId: string, body: RunCreate): Promise<Outcome<Run>> {
    // receipt order is fixed here, before any await: the lock chains calls in arrival order
    return this.withLock(threadId, async () => {
      const assistant = await this.assistants.resolve(body.assistant_id);
      let thread = await this.threads.get(threadId);
      if (!assistant || (!thread && body.if_not_exists !== 'create')) return fail<Run>(404, 'Thread or assistant not found.');
      const strategy = body.multitask_strategy ?? 'enqueue';
      const inflight = this.inflight(threadId);
      if (inflight.length > 0 && strategy === 'reject') return fail<Run>(409, THREAD_BUSY);
      if (inflight.length > 0 && (strategy === 'interrupt' || strategy === 'rollback')) {
        for (const runId of inflight) await this.cancelRun(threadId, runId, strategy);
        thread = await this.threads.get(threadId);
      }
      const now = nowIso();
      const run: RunRecord = {
        run_id: uuid7(),
        thread_id: threadId,
        assistant_id: assistant.assistant_id,
        created_at: now,
        updated_at: now,
        status: 'pending',
        metadata: (body.metadata as Record<string, unknown>) ?? {},
        kwargs: runKwargs(body),
        multitask_strategy: strategy,
        attempt: 1,
      };
      const base = thread ?? newThread(threadId, {});
      const nextThread: ThreadRecord = {
        ...base,
        status: 'busy',
        updated_at: now,
        metadata: { ...base.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
        config: (body.config as Record<string, unknown>) ?? {},
      };
      await this.options.store.write([
        { collection: this.threads.name, id: threadId, value: nextThread },
        { collection: this.runs.name, id: run.run_id, value: run },
      ]);
      this.broker.open(run.run_id);
      this.queue.enqueue({ runId: run.run_id, threadId, notBefore: notBefore(run) });
      return ok(toApiRun(run));
    });
  }

  async getRun(threadId: string, runId: string): Promise<Run | undefined> {
    const run = await this.runs.get(runId);
    return run && run.thread_id === threadId ? toApiRun(run) : undefined;
  }

  async listRuns(threadId: string, query: { limit?: number; offset?: number; status?: string }): Promise<Run[]> {
    const runs = await this.runs.list({ where: { thread_id: threadId, ...(query.status ? { status: query.status } : {}) } });
    runs.sort((a, b) => (a.run_id < b.run_id ? 1 : -1));
    const offset = query.offset ?? 0;
    return runs.slice(offset, offset + (query.limit ?? 10)).map(toApiRun);
  }

  async waitForRun(threadId: string, runId: string, signal?: AbortSignal): Promise<Run> {
    const before = await this.runs.get(runId);
    if (!before || before.thread_id !== threadId) throw new Error(`Run ${runId} not found on thread ${threadId}`);
    if (!FINAL_STATUSES.has(before.status)) await this.broker.ended(runId, signal);
    const after = await this.runs.get(runId);
    // a rolled-back run is deleted: report it as interrupted
    return toApiRun(after ?? { ...before, status: 'interrupted', updated_at: nowIso() });
  }

  /** The join/wait answer of a finished run: final values, `__interrupt__` or `__error__`. */
  async runResult(threadId: string, runId: string): Promise<RunResult> {
    const kept = this.broker.result(runId);
    if (kept !== undefined) return kept as RunResult;
    const run = await this.runs.get(runId);
    if (run?.status === 'error' && run.error) return errorResult(run.error);
    const thread = await this.threads.get(threadId);
    return (thread && (await this.stateReader.values(thread))) ?? {};
  }

  async cancelRun(threadId: string, runId: string, action: 'interrupt' | 'rollback' = 'interrupt'): Promise<Outcome<Run>> {
    const run = await this.runs.get(runId);
    if (!run || run.thread_id !== threadId) return fail<Run>(404, `Run ${runId} not found`);
    if (FINAL_STATUSES.has(run.status)) return fail<Run>(409, `Run ${runId} has already finished with status ${run.status}`);
    if (this.queue.remove(threadId, runId) || (run.status === 'pending' && !this.active.has(runId))) {
      const thread = await this.threads.get(threadId);
      const idle = this.inflight(threadId).length === 0;
      const now = nowIso();
      const cancelled: RunRecord = { ...run, status: 'interrupted', updated_at: now };
      await this.options.store.write([
        action === 'rollback' ? { collection: this.runs.name, id: runId, delete: true } : { collection: this.runs.name, id: runId, value: cancelled },
        ...(thread && idle ? [{ collection: this.threads.name, id: threadId, value: { ...thread, status: 'idle' as const, updated_at: now } }] : []),
      ]);
      this.broker.end(runId);
      return ok(toApiRun(cancelled));
    }
    const active = this.active.get(runId);
    if (active) {
      active.action = action;
      active.controller.abort();
    }
    return ok(toApiRun(run));
  }

  async *runEvents(runId: string, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncIterable<RunEvent> {
    if (this.broker.has(runId)) {
      yield* this.broker.join(runId, options);
      return;
    }
    // the log is gone (the run ended long ago): answer with its outcome
    const run = await this.runs.get(runId);
    if (!run) return;
    const result = await this.runResult(run.thread_id, runId);
    yield { id: '0', event: 'metadata', data: { run_id: runId, attempt: run.attempt } };
    if (run.status === 'error' && run.error) yield { id: '1', event: 'error', data: run.error };
    else yield { id: '1', event: 'values', data: result };
    yield { id: '2', event: 'end', data: null };
  }

  private inflight(threadId: string): string[] {
    const running = this.queue.runningOn(threadId);
    return [...(running ? [running] : []), ...this.queue.pendingOn(threadId)];
  }

  private withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.locks.set(key, tail);
    void tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return next;
  }
}

function ttlSetting(ttl: ThreadTtl | undefined): { ttl?: ThreadTtlSetting } {
  return ttl ? { ttl: { strategy: ttl.strategy ?? 'delete', ttl_minutes: ttl.ttl } } : {};
}
